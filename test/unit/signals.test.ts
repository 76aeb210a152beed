import { describe, expect, it } from 'vitest';
import { keepOurSignalHandlers, ourSignalHandlers } from '../../src/app/selection.ts';

describe("the run's signal handlers while vitest starts", () => {
  it('a SIGINT/SIGTERM handler added between ourSignalHandlers and keepOurSignalHandlers is gone before any signal can come', async () => {
    const mine = () => {};
    process.on('SIGINT', mine);
    const ours = ourSignalHandlers();
    try {
      // What vitest's logger does inside createVitest: exit the process on a signal.
      const exits = () => {};
      process.once('SIGINT', exits);
      process.once('SIGTERM', exits);
      // A signal is delivered between event-loop tasks: by then the handler is gone.
      await new Promise((r) => setImmediate(r));
      expect(process.listeners('SIGINT')).not.toContain(exits);
      expect(process.listeners('SIGTERM')).not.toContain(exits);
      expect(process.listeners('SIGINT')).toContain(mine);
    } finally {
      keepOurSignalHandlers(ours);
    }
    // Afterwards handlers are left alone again.
    const later = () => {};
    process.on('SIGINT', later);
    await new Promise((r) => setImmediate(r));
    expect(process.listeners('SIGINT')).toContain(later);
    process.off('SIGINT', later);
    process.off('SIGINT', mine);
  });
});
