package org.sysframe.transport.wire;

import org.sysframe.transport.internal.lookup.TypeTable;

import java.util.Arrays;
import java.util.Objects;

/**
 * Declared sizes per message type: the minimum request payload (the server answers EMSGSIZE below it),
 * the minimum response payload (the client fails with EMSGSIZE below it, except a stream's empty
 * terminator), whether responses come as a stream, and a name for logs and events ({@link #name(int)}).
 * Look-ups neither box nor allocate.
 */
public final class MessageSpecs {
    private record Spec(int minRequest, int minResponse, boolean stream, String name) {}

    private TypeTable<Spec> specs = new TypeTable<>();

    /** Made by {@link #grout()} and {@link #copy()}: every table starts from the main module's messages. */
    private MessageSpecs() {}

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
        Spec old = specs.get(type);
        specs.put(type, new Spec(minRequestLen, minResponseLen, isStream, old == null ? null : old.name()));
        return this;
    }

    /** Names type in logs and flight-recorder events (e.g. {@code "MY_ROUTE_ADD"}); its sizes stay as declared. */
    public MessageSpecs name(int type, String name) {
        Objects.requireNonNull(name);
        Spec old = specs.get(type);
        specs.put(type, old == null ? new Spec(0, 0, false, name)
                : new Spec(old.minRequest(), old.minResponse(), old.stream(), name));
        return this;
    }

    /** The name given to type, else the main module's name for it ({@link GroutApi#typeName}), else its hex value. */
    public String name(int type) {
        Spec s = specs.get(type);
        return s != null && s.name() != null ? s.name() : GroutApi.typeName(type);
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

    /** Whether responses to type come as a stream, ended by an empty one; false when undeclared. */
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
        return "MessageSpecs" + Arrays.toString(Arrays.stream(specs.types()).mapToObj(this::name).toArray());
    }
}
