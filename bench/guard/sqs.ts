import { type Measurement, measureTimed } from "../lib.js";
import { serveCommand, startServer, stopServer } from "../servers/child-server.js";
import { drainSide, providerSide, type SqsSide, sdkSide } from "../sqs-provider.bench.js";
import type { Contest } from "./ratio.js";

/**
 * Times `count` messages through `side` without the usual collection first: a forced full GC
 * deoptimises the clients' hot code (Node's HTTP client, signing, JSON), so each run would start
 * cold and a few thousand messages would be billed mostly at interpreter speed.
 */
function timed(name: string, side: SqsSide, count: number): Promise<Measurement> {
  return measureTimed(name, count, () => drainSide(side, count), { collect: false });
}

/**
 * Our sqs provider against `@aws-sdk/client-sqs`, both clients of one `queue-runtime serve --memory`
 * in a child process (its CPU is not counted). Each keeps one client and one queue for every run,
 * warmed up by `warmUp` messages first, as a long-lived client would be.
 */
export async function sqsContest(count: number, warmUp: number): Promise<Contest> {
  const server = await startServer(serveCommand("--memory"));
  const sides: SqsSide[] = [];
  const close = async () => {
    for (const side of sides) await side.close();
    await stopServer(server);
  };
  try {
    const ours = await providerSide(server.endpoint, "ours");
    sides.push(ours);
    const sdk = await sdkSide(server.endpoint, "sdk");
    sides.push(sdk);
    await drainSide(ours, warmUp);
    await drainSide(sdk, warmUp);
    return {
      ours: () => timed("queue-runtime sqs provider", ours, count),
      floor: () => timed("@aws-sdk/client-sqs", sdk, count),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
