import { createClient } from "../../src/index.js";
import { checkAgainstModel } from "../../src/testing/model/index.js";

// The runs a broker gets (`time: "broker"`: no clock moves, long locks, no delays or time to live),
// checked on the memory provider, so that the option itself is known to hold whatever the brokers do.
checkAgainstModel(
  "memory on broker time",
  ({ clock, namespace }) =>
    createClient({ provider: { type: "memory", name: namespace, clock }, createQueues: false }),
  { numRuns: 200, model: { time: "broker" } },
);

// With standard queues whose order is unspecified and a next session the semantics do not name
// (RabbitMQ's): receives take standard queues whole, compared as sets, and a step that takes the
// next free session is made only while one is free.
checkAgainstModel(
  "memory on broker time, standard order and next session unspecified",
  ({ clock, namespace }) =>
    createClient({ provider: { type: "memory", name: namespace, clock }, createQueues: false }),
  { numRuns: 100, model: { time: "broker", standardOrder: "unspecified", nextSession: "unspecified" } },
);
