package org.sysframe.bench;

import org.sysframe.transport.ClientOptions;
import org.sysframe.transport.FlushMode;
import org.sysframe.transport.RecvFraming;
import org.sysframe.transport.SendFraming;
import org.sysframe.transport.ServerOptions;

import java.util.List;

/** A client framing paired with a server framing: one column of the comparison. */
public record Pairing(String name, String description, SendFraming clientSend, RecvFraming clientRecv,
                      SendFraming serverSend, FlushMode serverFlush) {

    /** The four pairings of the benchmark; the first is the baseline ratios are taken against. */
    public static List<Pairing> standard() {
        return List.of(
                new Pairing("baseline", "two syscalls per message (Grout before the change)",
                        SendFraming.SPLIT, RecvFraming.EXACT, SendFraming.SPLIT, FlushMode.IMMEDIATE),
                new Pairing("seed-v3", "seed patch: copy <= 1024 + read-ahead 1024, server copy",
                        SendFraming.copy(1024), RecvFraming.readAhead(1024), SendFraming.copy(1024), FlushMode.IMMEDIATE),
                new Pairing("merged", "Grout's merged change: sendmsg + read-ahead 8192, server writev deferred",
                        SendFraming.GATHER, RecvFraming.READAHEAD, SendFraming.GATHER, FlushMode.DEFERRED),
                new Pairing("sysframe", "sysframe default: copy <= 1024 else sendmsg, read-ahead 8192; server deferred, a batch of one small response copied and sent once",
                        SendFraming.COPY_GATHER, RecvFraming.READAHEAD, SendFraming.COPY_GATHER, FlushMode.DEFERRED));
    }

    /** The standard pairing of that name. */
    public static Pairing named(String name) {
        for (Pairing p : standard()) if (p.name().equals(name)) return p;
        throw new IllegalArgumentException("no pairing " + name);
    }

    public ClientOptions client(String path) {
        return ClientOptions.defaults().socketPath(path).send(clientSend).recv(clientRecv);
    }

    public ServerOptions server(String path) {
        return ServerOptions.defaults().socketPath(path).send(serverSend).flush(serverFlush);
    }

    public String framing() {
        return "client " + clientSend + "/" + clientRecv + ", server " + serverSend + "/"
                + serverFlush.name().toLowerCase(java.util.Locale.ROOT);
    }
}
