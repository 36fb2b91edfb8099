package org.sysframe.bench.cli;

import org.sysframe.transport.SendFraming;
import picocli.CommandLine.Option;

/** {@code --send} of {@code ping} and {@code serve}: how the client, or the server, frames what it sends. */
final class SendOption {
    @Option(names = "--send",
            description = "split | copy[:SIZE] | gather | copygather[:SIZE] (default: ${DEFAULT-VALUE})")
    String send = "copygather";

    /** The framing --send names; anything else fails naming the option and the accepted forms. */
    SendFraming framing() {
        return OptionValues.parse("--send", send, SendFraming::parse);
    }
}
