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
}
