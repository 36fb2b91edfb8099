/**
 * Internal to the transport, not exported: the server's protocol per connection (cut frames, dispatch,
 * reply, batch policy, subscriptions) and what every event loop does whatever its driver (connection
 * table, acceptor, task queue, timers, bounds).
 */
package org.sysframe.transport.internal.server;
