package org.sysframe.bench.cli;

import org.sysframe.bench.report.ResultFiles;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/**
 * {@code --out} of {@code compare} and {@code matrix}: the directory a run's files are written to,
 * a new {@code bench/results/<timestamp>} unless given.
 */
final class OutOption {
    @Option(names = "--out", description = "output directory (default: bench/results/<timestamp>)")
    Path out;

    /**
     * The directory to write to, the given one or a new timestamped one, refused (naming the option)
     * when the files could not be written there: called before anything is measured.
     */
    Path dir() {
        Path dir = out != null ? out : Path.of("bench", "results",
                LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        ResultFiles.checkWritable("--out", dir);
        return dir;
    }
}
