import type { Handlers } from "../sqs-service.js";

/** StartMessageMoveTask, ListMessageMoveTasks and CancelMessageMoveTask. */
export const moveTaskHandlers: Handlers = {
  StartMessageMoveTask(state, input) {
    return {
      TaskHandle: state.moveTasks.start(
        input.SourceArn,
        input.DestinationArn,
        input.MaxNumberOfMessagesPerSecond,
      ),
    };
  },

  ListMessageMoveTasks(state, input) {
    const results = state.moveTasks.list(input.SourceArn, input.MaxResults);
    return results.length === 0 ? {} : { Results: results };
  },

  CancelMessageMoveTask(state, input) {
    return { ApproximateNumberOfMessagesMoved: state.moveTasks.cancel(input.TaskHandle) };
  },
};
