/**
 * Internal to the transport, not exported: connecting a client (the server's uid checked right after
 * connect) and the built-in payloads of the main module.
 */
package org.sysframe.transport.internal.client;
