// Where each event that wrote a colliding record key is: what names the event of a repeated key when Reasonix's
// refusal of it is reported. One note an event, however many keys it holds; found by sequence.
import { describe, expect, it } from 'vitest';
import { RecordKeyEvents } from '../../../src/session/replay/record-key-events.js';

describe('RecordKeyEvents', () => {
  it('finds each noted event by its sequence, once however often it is noted, and nothing for another', () => {
    const events = new RecordKeyEvents();
    expect(events.placeOf(1)).toBeUndefined();
    events.note(3, 100, 'message/complete');
    events.note(3, 100, 'message/complete');
    events.note(7, 250, 'history/replace');
    events.note(8, 400, 'message/upsert');
    events.note(12, 900, 'legacy/import');
    expect([3, 7, 8, 12].map((seq) => events.placeOf(seq))).toEqual([
      { offset: 100, kind: 'message/complete' },
      { offset: 250, kind: 'history/replace' },
      { offset: 400, kind: 'message/upsert' },
      { offset: 900, kind: 'legacy/import' },
    ]);
    expect([1, 4, 9, 13].map((seq) => events.placeOf(seq))).toEqual([undefined, undefined, undefined, undefined]);
  });
});
