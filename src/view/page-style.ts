/**
 * The one stylesheet of every page: inline, no fonts or images to fetch, light and dark by the
 * reader's colour scheme, and a print layout without the controls.
 */
export const PAGE_STYLE = `
:root{color-scheme:light dark;--bg:#f5f6f8;--fg:#1c2026;--muted:#5e6773;--card:#fff;--border:#dce0e6;--user:#eaf1fd;--user-border:#bcd0f5;--accent:#2458c6;--ok:#1a7f37;--fail:#c8232d;--warn:#8f5f00;--code:#f2f4f7;--add:#e3f7e8;--add-fg:#0f5a28;--del:#fdebea;--del-fg:#8a1620;--shadow:0 1px 2px rgba(20,30,50,.06)}
@media (prefers-color-scheme:dark){:root{--bg:#0e1014;--fg:#e3e6ea;--muted:#98a2b0;--card:#171a20;--border:#2b313c;--user:#142036;--user-border:#2c4675;--accent:#7aa7ff;--ok:#4cc26b;--fail:#ff6b66;--warn:#e0a83a;--code:#101318;--add:#10291a;--add-fg:#8de3a8;--del:#32161a;--del-fg:#ffaaa3;--shadow:none}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans CJK SC",sans-serif}
.page{max-width:920px;margin:0 auto;padding:28px 20px 64px}
.kicker{margin:0;color:var(--muted);font-size:.78rem;letter-spacing:.06em;text-transform:uppercase}
h1{font-size:1.55rem;line-height:1.25;margin:.2rem 0 .9rem;overflow-wrap:anywhere}
h2{font-size:1.05rem;margin:2rem 0 .5rem;overflow-wrap:anywhere}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:3px 18px;margin:0;font-size:.86rem}
.facts dt{color:var(--muted)}.facts dd{margin:0;overflow-wrap:anywhere}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,"Cascadia Mono",Menlo,Consolas,monospace}
.resume{margin:.9rem 0 0;font-size:.86rem;display:flex;gap:10px;align-items:baseline;flex-wrap:wrap}
.resume span{color:var(--muted)}
.resume code{background:var(--code);border:1px solid var(--border);border-radius:6px;padding:2px 8px;font-size:.82rem;overflow-wrap:anywhere}
.banner{border-radius:8px;padding:10px 14px;margin:16px 0;font-size:.9rem;overflow-wrap:anywhere}
.banner.damage{border:1px solid var(--fail);color:var(--fg);background:var(--del)}
.banner.damage strong{color:var(--fail)}
.banner.note{border:1px solid var(--border);background:var(--card);color:var(--muted)}
.controls[hidden]{display:none}
.controls{display:flex;gap:8px;justify-content:flex-end;margin:18px 0 0}
.controls button{font:inherit;font-size:.8rem;color:var(--fg);background:var(--card);border:1px solid var(--border);border-radius:6px;padding:3px 10px;cursor:pointer}
main{margin-top:14px}
.msg{background:var(--card);border:1px solid var(--border);border-radius:10px;padding:10px 16px 12px;margin:14px 0;box-shadow:var(--shadow)}
.msg.user{background:var(--user);border-color:var(--user-border)}
.msg.system{background:transparent;border-style:dashed}
.msg.system .body{color:var(--muted);font-size:.86rem}
.who{display:flex;gap:10px;align-items:baseline;font-size:.76rem;color:var(--muted);margin-bottom:4px}
.role{font-weight:650;letter-spacing:.05em;text-transform:uppercase;color:var(--fg)}
.msg.user .role{color:var(--accent)}
.text{white-space:pre-wrap;overflow-wrap:anywhere}
pre{font-size:12.5px;line-height:1.45;background:var(--code);border:1px solid var(--border);border-radius:6px;padding:8px 10px;margin:6px 0;overflow:auto;max-height:520px;white-space:pre-wrap;overflow-wrap:anywhere}
.body pre{max-height:none}
.cut{color:var(--muted);font-size:.8rem;font-style:italic;margin:2px 0 0}
pre .fence{color:var(--muted)}
details.more[open]>summary .if-closed,details.more:not([open])>summary .if-open{display:none}
details>summary{cursor:pointer;list-style:none}
details>summary::-webkit-details-marker{display:none}
details>summary::before{content:"\\25B8";display:inline-block;width:1em;color:var(--muted)}
details[open]>summary::before{content:"\\25BE"}
details.tool{background:var(--card);border:1px solid var(--border);border-radius:8px;margin:6px 0 6px 22px;box-shadow:var(--shadow)}
details.tool>summary{display:flex;gap:8px;align-items:baseline;padding:6px 12px;font-size:.86rem}
details.tool[open]>summary{border-bottom:1px solid var(--border)}
.tool .name{font-weight:650;white-space:nowrap}
.tool .target{color:var(--muted);flex:1;min-width:0;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.tool .part{padding:4px 12px 8px}
.tool h3{font-size:.72rem;font-weight:650;color:var(--muted);text-transform:uppercase;letter-spacing:.05em;margin:6px 0 0}
.tool h3 .path{text-transform:none;letter-spacing:0;font-size:.8rem;color:var(--fg)}
.badge{font-size:.72rem;border:1px solid currentColor;border-radius:999px;padding:0 7px;white-space:nowrap}
.badge.ok{color:var(--ok)}.badge.fail{color:var(--fail)}.badge.warn{color:var(--warn)}.badge.plain{color:var(--muted)}
.diff .add{display:block;background:var(--add);color:var(--add-fg)}
.diff .del{display:block;background:var(--del);color:var(--del-fg)}
.diff .same{display:block}
details.more{margin-top:4px}
details.more>summary{color:var(--accent);font-size:.84rem}
details.reasoning>summary{color:var(--muted);font-size:.8rem}
details.reasoning .text{color:var(--muted);font-size:.88rem;border-left:3px solid var(--border);padding-left:10px}
.marker{display:flex;align-items:center;gap:12px;color:var(--muted);font-size:.8rem;margin:22px 0}
.marker::before,.marker::after{content:"";flex:1;border-top:1px dashed var(--border)}
.marker.fail{color:var(--fail)}.marker.warn{color:var(--warn)}
.summary-box{margin:-12px 0 18px}
table.sessions{width:100%;border-collapse:collapse;font-size:.88rem;background:var(--card);border:1px solid var(--border);border-radius:8px;overflow:hidden}
table.sessions td,table.sessions th{padding:6px 10px;border-bottom:1px solid var(--border);text-align:left;vertical-align:baseline}
table.sessions th{color:var(--muted);font-weight:600;font-size:.76rem;text-transform:uppercase;letter-spacing:.04em;white-space:nowrap}
table.sessions th:first-child{width:100%}
table.sessions td{overflow-wrap:anywhere}
table.sessions th.num,table.sessions td.num{text-align:right;font-variant-numeric:tabular-nums}
table.sessions .nowrap{white-space:nowrap}
@media (max-width:720px){
table.sessions,table.sessions tbody,table.sessions tr,table.sessions td{display:block}
table.sessions thead{display:none}
table.sessions tr{padding:8px 12px;border-bottom:1px solid var(--border)}
table.sessions tr:last-child{border-bottom:0}
table.sessions td{padding:1px 0;border:0;text-align:left}
table.sessions td.num{display:inline-block;text-align:left;margin-right:14px}
table.sessions td.status{display:inline-block}
table.sessions td[data-label]::before{content:attr(data-label) " ";color:var(--muted);font-size:.8rem}
}
a{color:var(--accent)}
footer{margin-top:40px;color:var(--muted);font-size:.76rem;overflow-wrap:anywhere}
@media print{body{background:#fff;color:#000}.controls{display:none}.msg,details.tool{box-shadow:none;break-inside:avoid-page}pre{max-height:none;overflow:visible}}
`;

/**
 * The page's only script: buttons that open and close every fold, and every fold opened before
 * printing. Without it the page reads the same (each fold opens by itself).
 */
export const PAGE_SCRIPT = `(function(){var c=document.getElementById("controls");if(!c)return;c.hidden=false;function all(open){var d=document.querySelectorAll("details");for(var i=0;i<d.length;i++)d[i].open=open;}document.getElementById("expand-all").addEventListener("click",function(){all(true);});document.getElementById("collapse-all").addEventListener("click",function(){all(false);});window.addEventListener("beforeprint",function(){all(true);});})();`;
