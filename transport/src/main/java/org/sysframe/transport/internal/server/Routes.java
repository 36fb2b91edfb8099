package org.sysframe.transport.internal.server;

import org.sysframe.transport.Handler;
import org.sysframe.transport.wire.MessageSpecs;
import org.sysframe.transport.internal.lookup.TypeTable;

/**
 * The server's dispatch table, built once at start from the handlers and the {@link MessageSpecs}
 * (the one table of declared sizes): one look-up per request gives the handler and both minimum sizes.
 */
public final class Routes {
    record Route(Handler handler, int minRequest, int minResponse) {}

    private final TypeTable<Route> routes = new TypeTable<>();
    private final MessageSpecs specs;

    public Routes(TypeTable<Handler> handlers, MessageSpecs specs) {
        this.specs = specs.copy();
        for (int type : handlers.types()) {
            routes.put(type, new Route(handlers.get(type), specs.minRequest(type), specs.minResponse(type)));
        }
    }

    /** The route of type, or null when no handler serves it. */
    Route get(int type) { return routes.get(type); }

    /** The name of type for logs and events (see {@link MessageSpecs#name}). */
    public String name(int type) { return specs.name(type); }

    private volatile ChannelOpener channelOpener;

    /** Answers opener's request type with it (a server offering shared-memory channels), before any handler. */
    public void channelOpener(ChannelOpener opener) { this.channelOpener = opener; }

    /** The opener given, or null. */
    public ChannelOpener channelOpener() { return channelOpener; }
}
