/**
 * Internal to the transport, not exported: the message-type lookup table that the wire format's
 * declared sizes, the server's routes and its handlers are kept in. It depends on nothing, so the
 * wire format depends on nothing else.
 */
package org.sysframe.transport.internal.lookup;
