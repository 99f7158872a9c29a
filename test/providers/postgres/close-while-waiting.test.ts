// Closing a client while its receive waits: the receive resolves empty and close() ends, even when
// the close comes while the connection that listens for the queue's notifications is being set up.
import { describe, expect, it } from "vitest";
import { createClient } from "../../../src/index.js";
import { POSTGRES_URL, useSchema } from "./database.js";

const schema = useSchema();

describe("a postgres client closed while a receive waits", () => {
  it("resolves the receive empty and closes, whenever the close comes", async () => {
    const setup = await createClient({
      provider: { type: "postgres", connectionString: POSTGRES_URL, schema },
    });
    await setup.admin.createQueue("idle");
    await setup.close();
    // The listening connection is set up a few ms into the first wait: closes land before, during and after it.
    for (let round = 0; round < 40; round++) {
      const client = await createClient({
        provider: { type: "postgres", connectionString: POSTGRES_URL, schema },
      });
      const waiting = client.receiveMessages("idle", 10, 20_000);
      await new Promise((resolve) => setTimeout(resolve, round % 10));
      const closed = client.close();
      await expect(waiting).resolves.toEqual([]);
      await expect(
        Promise.race([
          closed.then(() => "closed"),
          new Promise((resolve) => setTimeout(() => resolve("hung"), 5_000)),
        ]),
      ).resolves.toBe("closed");
    }
  }, 90_000);
});
