// A judging thread of check-traffic (src/traffic/threads.ts): its TypeScript bundled like the CLI's.
import { loadEntry } from './launch.mjs';

const { runJudgingThread } = await loadEntry('src/traffic/thread-main.ts');
runJudgingThread();
