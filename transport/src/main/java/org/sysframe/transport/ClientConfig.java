package org.sysframe.transport;

/**
 * The settings a connected {@link GroutClient} uses, frozen from {@link ClientOptions} at connect:
 * changing the options afterwards changes nothing in the client. See {@link ClientOptions} for each
 * setting's meaning and default. The message sizes are a private copy.
 */
public record ClientConfig(String socketPath, int apiVersion, String version, SendFraming send, RecvFraming recv,
                           long receiveTimeoutMillis, MessageSpecs specs, int socketBufferSize, WaitMode waitMode, int cpu,
                           Backend backend, boolean sqpoll) {
    public ClientConfig {
        specs = specs.copy();
    }

    /** A copy of the declared message sizes (the client's own copy cannot be changed). */
    @Override
    public MessageSpecs specs() { return specs.copy(); }

    @Override
    public String toString() {
        return "socket " + socketPath + ", api " + apiVersion + ", send " + send + ", recv " + recv
                + (receiveTimeoutMillis > 0 ? ", timeout " + receiveTimeoutMillis + " ms" : "")
                + (waitMode.kind() != WaitMode.Kind.BLOCK ? ", wait " + waitMode : "") + (cpu >= 0 ? ", cpu " + cpu : "")
                + (backend != Backend.EPOLL ? ", backend " + backend + (sqpoll ? " (sqpoll)" : "") : "");
    }
}
