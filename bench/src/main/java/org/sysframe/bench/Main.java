package org.sysframe.bench;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code ./sysframe} command line. */
@Command(name = "sysframe", mixinStandardHelpOptions = true, version = "sysframe 0.1.0",
        description = "Grout-style API transport over AF_UNIX through the FFM API, with exact syscall counts.",
        subcommands = {ServeCommand.class, PingCommand.class, MatrixCommand.class, CompareCommand.class})
public final class Main implements Runnable {
    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    public static void main(String[] args) {
        CommandLine cl = new CommandLine(new Main());
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
            System.err.println("sysframe " + cmd.getCommandName() + ": " + e.getMessage());
            // Expected failures (I/O, bad arguments) print one line; anything else is a bug: show where.
            if (!(e instanceof java.io.IOException) && !(e instanceof IllegalArgumentException)) e.printStackTrace();
            return 1;
        });
        System.exit(cl.execute(args));
    }
}
