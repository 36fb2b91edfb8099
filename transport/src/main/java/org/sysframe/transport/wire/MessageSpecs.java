package org.sysframe.transport.wire;

import java.util.Arrays;

/**
 * Declared sizes per message type: the minimum request payload (the server answers EMSGSIZE below it),
 * the minimum response payload (the client fails with EMSGSIZE below it, except a stream's empty
 * terminator), and whether responses come as a stream. Look-ups neither box nor allocate.
 */
public final class MessageSpecs {
    private record Spec(int minRequest, int minResponse, boolean stream) {}

    private TypeTable<Spec> specs = new TypeTable<>();

    /** The main module's messages (docs/wire-format.md). */
    public static MessageSpecs grout() {
        return new MessageSpecs()
                // Older Grout servers answer GR_HELLO with no payload: accepted, max_ifaces is then unknown.
                .put(GroutApi.HELLO, GroutApi.HELLO_REQUEST_SIZE, 0, false)
                .put(GroutApi.LOG_PACKETS_SET, 1, 0, false)
                .put(GroutApi.LOG_LEVEL_LIST, 1, 68, true)
                .put(GroutApi.LOG_LEVEL_SET, 68, 0, false)
                .put(GroutApi.EVENT_SUBSCRIBE, GroutApi.SUBSCRIBE_REQUEST_SIZE, 0, false)
                .put(GroutApi.EVENT_UNSUBSCRIBE, 0, 0, false)
                .put(GroutApi.PING, 0, 0, false)
                .put(GroutApi.PING2, GroutApi.PING2_SIZE, GroutApi.PING2_SIZE, false);
    }

    /** Declares (or redeclares) a type. */
    public MessageSpecs put(int type, int minRequestLen, int minResponseLen, boolean isStream) {
        specs.put(type, new Spec(minRequestLen, minResponseLen, isStream));
        return this;
    }

    /** Minimum request payload of type; 0 when undeclared. */
    public int minRequest(int type) {
        Spec s = specs.get(type);
        return s == null ? 0 : s.minRequest();
    }

    /** Minimum response payload of type; 0 when undeclared. */
    public int minResponse(int type) {
        Spec s = specs.get(type);
        return s == null ? 0 : s.minResponse();
    }

    public boolean isStream(int type) {
        Spec s = specs.get(type);
        return s != null && s.stream();
    }

    /** A copy, so one side's additions do not leak into another's. */
    public MessageSpecs copy() {
        MessageSpecs c = new MessageSpecs();
        c.specs = specs.copy();
        return c;
    }

    @Override
    public String toString() {
        return "MessageSpecs" + Arrays.toString(Arrays.stream(specs.types()).mapToObj(GroutApi::typeName).toArray());
    }
}
