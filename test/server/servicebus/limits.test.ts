import { connect, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { startEndpoint } from "./harness.js";

/** A raw TCP connection to `port` and a promise of how long it stayed open. */
function rawConnection(port: number): { socket: Socket; ended: Promise<number> } {
  const started = performance.now();
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => undefined);
  socket.resume();
  const ended = new Promise<number>((resolve) =>
    socket.once("close", () => resolve(performance.now() - started)),
  );
  return { socket, ended };
}

const AMQP_HEADER = Buffer.from([0x41, 0x4d, 0x51, 0x50, 0, 1, 0, 0]);

describe("the Service Bus endpoint's limits on what a connection may hold", () => {
  it("a TCP connection that never opens AMQP is cut after the open timeout", async () => {
    const { server, client } = await startEndpoint({ openTimeoutMs: 300 });
    const silent = rawConnection(server.port);
    expect(await silent.ended).toBeGreaterThanOrEqual(250);
    await client.createSender("still-served").sendMessages({ body: "yes" });
  });

  it("a frame declared larger than the announced maximum ends that connection at once, unbuffered", async () => {
    const { server, client } = await startEndpoint();
    const greedy = rawConnection(server.port);
    const declared = Buffer.alloc(8);
    declared.writeUInt32BE(0xfffffff0, 0);
    declared.writeUInt8(2, 4);
    greedy.socket.write(AMQP_HEADER);
    greedy.socket.write(declared);
    expect(await greedy.ended).toBeLessThan(2_000);
    await client.createSender("still-served").sendMessages({ body: "yes" });
  });
});
