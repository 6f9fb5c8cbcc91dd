package cn.agentao.agent.connect.a2a;

/** A remote agent could not be used; the message completes "The remote agent … : " in plain words. */
final class A2aClientException extends Exception {
    A2aClientException(String message) {
        super(message, null, false, false);
    }
}
