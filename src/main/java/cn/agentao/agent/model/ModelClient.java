package cn.agentao.agent.model;

import cn.agentao.agent.util.Cancellation;

/** Talks to one model of one provider. Implementations are thread-safe; concurrent calls are independent. */
public interface ModelClient {

    /**
     * Streams one model call and blocks until it ends. Listener callbacks run on the calling thread, in the order
     * the provider sent them, and never after this method returns.
     *
     * @throws ModelException when the call fails or is cancelled ({@link ModelException.Kind#CANCELLED})
     */
    ModelResponse stream(ModelRequest request, ModelStreamListener listener, Cancellation cancel) throws ModelException;

    /**
     * Starts, in the background, the one-time set-up a first call needs (its HTTP client), so that it overlaps the
     * rest of a turn's start instead of delaying the request. Never blocks, never fails: a failed set-up is left for
     * {@link #stream} to report. Does nothing when there is nothing to set up.
     */
    default void prepare() {}
}
