import type { Socket } from "node:net";

/**
 * Makes what is written to `socket` in one pass of the event loop's tick queue go out in one
 * system call. rhea writes every frame on its own (each transfer, each disposition, each flow),
 * and with Nagle's algorithm off each write is a system call and a TCP segment of its own: a
 * burst of a hundred deliveries was a hundred of each. The socket is corked at its first write
 * and uncorked once the ticks queued then have run, which rhea's own processing is among.
 */
export function coalesceWrites(socket: Socket): void {
  const write = socket.write;
  let corked = false;
  const uncork = () => {
    corked = false;
    socket.uncork();
  };
  socket.write = function (this: Socket, ...args: Parameters<Socket["write"]>) {
    if (!corked) {
      corked = true;
      socket.cork();
      process.nextTick(uncork);
    }
    return write.apply(this, args);
  } as Socket["write"];
}
