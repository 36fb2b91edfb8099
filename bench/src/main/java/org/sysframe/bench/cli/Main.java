package org.sysframe.bench.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.util.Properties;

/** The {@code ./sysframe} command line. */
@Command(name = "sysframe", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "Grout-style API transport over AF_UNIX through the FFM API, with exact syscall counts.",
        subcommands = {ServeCommand.class, PingCommand.class, MatrixCommand.class, CompareCommand.class,
                SweepCommand.class, TuneCommand.class, ResultsCommand.class, ProfileCommand.class,
                CommandLine.HelpCommand.class})
public final class Main implements Runnable {
    /**
     * The version the build was made from: {@code version.properties}, which Maven fills in with the
     * project's version ({@code bench/pom.xml} filters it), e.g. {@code sysframe 0.1.0}.
     */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() throws IOException {
            return new String[] {"sysframe " + version()};
        }

        /** The project's version, e.g. {@code 0.1.0}. */
        static String version() throws IOException {
            Properties p = new Properties();
            try (InputStream in = Main.class.getResourceAsStream("version.properties")) {
                if (in == null) throw new IOException("version.properties is missing from the class path: rebuild "
                        + "(make build)");
                p.load(in);
            }
            String v = p.getProperty("version", "");
            if (v.isEmpty()
                    || v.contains("${")) throw new IOException("version.properties was not filtered by the build: "
                            + v);
            return v;
        }
    }

    @picocli.CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** Exit code of a usage error (an unknown option, a bad value): the same however it was found. */
    static final int USAGE = 2;

    /**
     * The one line of a usage error: {@code sysframe: Unmatched argument at index 0: 'x' (see ./sysframe help)}
     * for the top level, {@code sysframe ping: ... (see ./sysframe ping --help)} for a command.
     */
    static String usageLine(CommandLine where, String message) {
        if (where.getParent() == null) return "sysframe: " + message + " (see ./sysframe help)";
        String cmd = where.getCommandName();
        return "sysframe " + cmd + ": " + message + " (see ./sysframe " + cmd + " --help)";
    }

    /** Runs the command line and exits with its code ({@link #execute}). */
    public static void main(String[] args) {
        // One line per log record: time, level, logger, message.
        if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
            System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tF %1$tT.%1$tL %4$s %3$s: %5$s%6$s%n");
        }
        System.exit(execute(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
    }

    /**
     * Runs args: picocli's exit code, {@link #USAGE} for a usage error, 1 for a failure; usage and help
     * go to out, every error is one line on err (with a stack trace only for a bug).
     */
    static int execute(PrintWriter out, PrintWriter err, String... args) {
        CommandLine cl = new CommandLine(new Main());
        // Every command's -V prints the same version line.
        for (CommandLine sub : cl.getSubcommands().values()) sub.getCommandSpec().versionProvider(new Version());
        cl.setOut(out);
        cl.setErr(err);
        cl.setParameterExceptionHandler((e, a) -> {
            err.println(usageLine(e.getCommandLine(), e.getMessage()));
            return USAGE;
        });
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
            err.println("sysframe " + cmd.getCommandName() + ": " + e.getMessage());
            if (e instanceof IllegalArgumentException) return USAGE; // a value the command refused
            // Expected failures (I/O) print one line; anything else is a bug: show where.
            if (!(e instanceof IOException)) e.printStackTrace(err);
            return 1;
        });
        int rc = cl.execute(args);
        out.flush();
        err.flush();
        return rc;
    }
}
