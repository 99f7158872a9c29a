import { toQueueError } from "../errors.js";
import type { MessageHandler } from "./consumer.js";
import type { HeldMessage } from "./held-message.js";
import { PollingConsumer } from "./polling-consumer.js";

/** `client.consume()`: one handler call per message, up to `concurrency` at once. */
export class MessageConsumer extends PollingConsumer<MessageHandler> {
  #handling = 0;

  get inFlight(): number {
    return this.#handling + this.waiting.length;
  }

  protected get capacity(): number {
    return this.settings.concurrency + this.settings.prefetch;
  }

  protected dispatch(): void {
    while (this.#handling < this.settings.concurrency && this.waiting.length > 0 && this.running) {
      const wait = this.limiter?.tryStart() ?? 0;
      if (wait > 0) {
        this.dispatchLater(wait);
        return;
      }
      const held = this.waiting.shift()!;
      this.#handling++;
      this.enter();
      void this.#handle(held);
    }
  }

  async #handle(held: HeldMessage): Promise<void> {
    try {
      await this.process(held, this.handler);
    } catch (error) {
      this.report(toQueueError(error), held.message);
    } finally {
      this.#handling--;
      this.release(held);
      this.leave();
      this.dispatch();
      this.roomFreed();
    }
  }
}
