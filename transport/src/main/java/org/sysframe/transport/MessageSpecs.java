package org.sysframe.transport;

import java.util.Arrays;

/**
 * Declared sizes per message type: the minimum request payload (the server answers EMSGSIZE below it),
 * the minimum response payload (the client fails with EMSGSIZE below it, except a stream's empty
 * terminator), and whether responses come as a stream. An open-addressing table over ints: a look-up
 * on the hot path neither boxes nor allocates.
 */
public final class MessageSpecs {
    private static final int EMPTY = 0; // type 0 is not a valid (module << 16 | id) in Grout

    private int[] types = new int[32];
    private int[] minRequest = new int[32];
    private int[] minResponse = new int[32];
    private boolean[] stream = new boolean[32];
    private int size;

    /** The main module's messages (PROTOCOL.md). */
    public static MessageSpecs grout() {
        return new MessageSpecs()
                .put(GroutApi.HELLO, GroutApi.HELLO_REQUEST_SIZE, GroutApi.HELLO_RESPONSE_SIZE, false)
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
        if (type == EMPTY) throw new IllegalArgumentException("message type 0 is reserved");
        if ((size + 1) * 2 > types.length) grow();
        int i = slot(types, type);
        if (types[i] == EMPTY) size++;
        types[i] = type;
        minRequest[i] = minRequestLen;
        minResponse[i] = minResponseLen;
        stream[i] = isStream;
        return this;
    }

    public boolean isKnown(int type) { return types[slot(types, type)] == type; }

    /** Minimum request payload of type; 0 when undeclared. */
    public int minRequest(int type) {
        int i = slot(types, type);
        return types[i] == type ? minRequest[i] : 0;
    }

    /** Minimum response payload of type; 0 when undeclared. */
    public int minResponse(int type) {
        int i = slot(types, type);
        return types[i] == type ? minResponse[i] : 0;
    }

    public boolean isStream(int type) {
        int i = slot(types, type);
        return types[i] == type && stream[i];
    }

    /** A copy, so one side's additions do not leak into another's. */
    public MessageSpecs copy() {
        MessageSpecs c = new MessageSpecs();
        c.types = types.clone();
        c.minRequest = minRequest.clone();
        c.minResponse = minResponse.clone();
        c.stream = stream.clone();
        c.size = size;
        return c;
    }

    private static int slot(int[] table, int type) {
        int mask = table.length - 1;
        int i = (type * 0x9E3779B9 >>> 16) & mask;
        while (table[i] != EMPTY && table[i] != type) i = (i + 1) & mask;
        return i;
    }

    private void grow() {
        int[] oldTypes = types;
        int[] oldReq = minRequest;
        int[] oldResp = minResponse;
        boolean[] oldStream = stream;
        int n = oldTypes.length * 2;
        types = new int[n];
        minRequest = new int[n];
        minResponse = new int[n];
        stream = new boolean[n];
        for (int j = 0; j < oldTypes.length; j++) {
            if (oldTypes[j] == EMPTY) continue;
            int i = slot(types, oldTypes[j]);
            types[i] = oldTypes[j];
            minRequest[i] = oldReq[j];
            minResponse[i] = oldResp[j];
            stream[i] = oldStream[j];
        }
    }

    @Override
    public String toString() {
        return "MessageSpecs" + Arrays.toString(Arrays.stream(types).filter(t -> t != EMPTY).mapToObj(GroutApi::typeName).toArray());
    }
}
