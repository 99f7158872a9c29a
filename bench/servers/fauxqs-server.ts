// Runs fauxqs (an in-process SQS emulator) in a process of its own, for the server benchmark.
import { startFauxqs } from "fauxqs";

const server = await startFauxqs({ port: 0, logger: false });
console.log(`listening on http://127.0.0.1:${server.port}`);
process.once("SIGTERM", () => {
  void server.stop().then(() => process.exit(0));
});
