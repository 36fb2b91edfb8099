/**
 * Internal to the transport, not exported: connecting a client (the server's uid checked right after
 * connect), the built-in payloads of the main module, and how one client serves many threads: the
 * I/O role ({@code Conduit}) and its parts, one job each.
 */
package org.sysframe.transport.internal.client;
