package org.sysframe.bench.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code ./sysframe} command line. */
@Command(name = "sysframe", mixinStandardHelpOptions = true, version = "sysframe 0.1.0",
        description = "Grout-style API transport over AF_UNIX through the FFM API, with exact syscall counts.",
        subcommands = {ServeCommand.class, PingCommand.class, MatrixCommand.class, CompareCommand.class,
                SweepCommand.class, TuneCommand.class, ResultsCommand.class})
public final class Main implements Runnable {
    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    /** Exit code of a usage error (an unknown option, a bad value): the same however it was found. */
    static final int USAGE = 2;

    public static void main(String[] args) {
        // One line per log record: time, level, logger, message.
        if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
            System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tF %1$tT.%1$tL %4$s %3$s: %5$s%6$s%n");
        }
        CommandLine cl = new CommandLine(new Main());
        cl.setParameterExceptionHandler((e, a) -> {
            String cmd = e.getCommandLine().getCommandName();
            System.err.println("sysframe " + cmd + ": " + e.getMessage() + " (see ./sysframe " + cmd + " --help)");
            return USAGE;
        });
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
            System.err.println("sysframe " + cmd.getCommandName() + ": " + e.getMessage());
            if (e instanceof IllegalArgumentException) return USAGE; // a value the command refused
            // Expected failures (I/O) print one line; anything else is a bug: show where.
            if (!(e instanceof java.io.IOException)) e.printStackTrace();
            return 1;
        });
        System.exit(cl.execute(args));
    }
}
