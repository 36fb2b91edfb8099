package org.sysframe.bench.peer;

import org.sysframe.transport.wire.GroutApi;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ByteChannel;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/**
 * The ping workload over a {@link ByteChannel} with direct buffers: the JDK's SocketChannel on a
 * UnixDomainSocketAddress, or jnr-unixsocket's channel. Written as a careful user would: buffers
 * allocated once, header and payload sent with a gathering write, with two writes, or copied into
 * one buffer; responses read ahead into 8 KiB or read exactly (header, then payload).
 */
public final class ChannelPeer implements PingPeer {
    public enum Send { GATHER, TWO_WRITES, COPY_ONE_WRITE }

    interface Opener {
        ByteChannel open(String path) throws IOException;
    }

    private final String name;
    private final String library;
    private final Opener opener;
    private final Send send;
    private final boolean readAhead;
    private final ByteBuffer header = ByteBuffer.allocateDirect(12).order(ByteOrder.nativeOrder());
    private final ByteBuffer payload = ByteBuffer.allocateDirect(GroutApi.MAX_MSG_LEN);
    private final ByteBuffer one = ByteBuffer.allocateDirect(12 + GroutApi.MAX_MSG_LEN).order(ByteOrder.nativeOrder());
    private final ByteBuffer in = ByteBuffer.allocateDirect(12 + GroutApi.MAX_MSG_LEN).order(ByteOrder.nativeOrder());
    private final ByteBuffer[] pair = {header, payload};
    private ByteChannel channel;
    private int len;
    private int nextId = 1;

    ChannelPeer(String name, String library, Opener opener, Send send, boolean readAhead) {
        this.name = name;
        this.library = library;
        this.opener = opener;
        this.send = send;
        this.readAhead = readAhead;
    }

    public static ChannelPeer jdk(String name, Send send, boolean readAhead) {
        return new ChannelPeer(name, "JDK SocketChannel", p -> SocketChannel.open(UnixDomainSocketAddress.of(p)), send,
                readAhead);
    }

    public static ChannelPeer jnr(String name, Send send, boolean readAhead) {
        return new ChannelPeer(name, "jnr-unixsocket",
                p -> jnr.unixsocket.UnixSocketChannel.open(new jnr.unixsocket.UnixSocketAddress(p)), send, readAhead);
    }

    @Override public String name() { return name; }

    @Override
    public String framing() {
        return library + ", " + switch (send) {
            case GATHER -> "gathering write";
            case TWO_WRITES -> "two writes";
            case COPY_ONE_WRITE -> "copy + one write";
        } + ", " + (readAhead ? "read-ahead 8192" : "exact reads");
    }

    @Override
    public void open(String path) throws IOException {
        channel = opener.open(path);
        in.clear().limit(0); // empty read-ahead
        ByteBuffer hello = ByteBuffer.allocateDirect(GroutApi.HELLO_REQUEST_SIZE).order(ByteOrder.nativeOrder());
        hello.putInt(0, GroutApi.DEFAULT_API_VERSION);
        byte[] v = "sysframe-peer".getBytes(StandardCharsets.US_ASCII);
        hello.put(4, v);
        int got = roundTrip(GroutApi.HELLO, hello, GroutApi.HELLO_REQUEST_SIZE);
        if (got != GroutApi.HELLO_RESPONSE_SIZE) throw new ErrnoException("GR_HELLO", Errno.EBADMSG, got
                + " byte response");
    }

    @Override
    public void prepare(int len) {
        this.len = len;
        payload.clear(); // a previous run left its limit at the old length
        for (int i = 0; i < len; i++) payload.put(i, (byte) (i * 31 + 7));
    }

    @Override
    public void ping() throws IOException {
        int got = roundTrip(GroutApi.PING, payload, len);
        if (got != len || (len > 0 && in.get(in.position() - 1) != payload.get(len - 1))) {
            throw new ErrnoException("ping", Errno.EBADMSG, "echo differs: " + got + " bytes");
        }
    }

    /** Sends a request, reads its response; returns the payload length, which ends at in.position(). */
    private int roundTrip(int type, ByteBuffer body, int bodyLen) throws IOException {
        int id = nextId++;
        header.clear();
        header.putInt(0, id).putInt(4, type).putInt(8, bodyLen);
        body.clear().limit(bodyLen);
        switch (send) {
            case GATHER -> {
                long want = 12L + bodyLen;
                GatheringByteChannel g = (GatheringByteChannel) channel;
                pair[1] = body;
                while (want > 0) want -= g.write(pair);
            }
            case TWO_WRITES -> {
                writeFully(header);
                writeFully(body);
            }
            case COPY_ONE_WRITE -> {
                one.clear();
                one.put(header).put(body).flip();
                writeFully(one);
            }
        }
        // Response: 12-byte header, then payload_len bytes.
        ensure(12);
        int forId = in.getInt(in.position());
        int status = in.getInt(in.position() + 4);
        int plen = in.getInt(in.position() + 8);
        in.position(in.position() + 12);
        if (forId != id || status != 0 || plen < 0 || plen > GroutApi.MAX_MSG_LEN) {
            throw new ErrnoException(GroutApi.typeName(type), status != 0 ? status : Errno.EBADMSG,
                    "for_id " + forId + " (want " + id + "), payload_len " + plen);
        }
        ensure(plen);
        in.position(in.position() + plen);
        return plen;
    }

    /** Makes at least n unread bytes available from in.position(). */
    private void ensure(int n) throws IOException {
        if (in.remaining() >= n) return;
        in.compact(); // unread bytes to the front, ready to fill
        in.limit(readAhead ? Math.max(n, 8192) : n);
        while (in.position() < n) {
            if (channel.read(in) < 0) throw new ErrnoException("read", Errno.ECONNRESET,
                    "server closed the connection");
        }
        in.flip();
    }

    private void writeFully(ByteBuffer b) throws IOException {
        while (b.hasRemaining()) channel.write(b);
    }

    @Override
    public void close() throws IOException {
        if (channel != null) channel.close();
    }
}
