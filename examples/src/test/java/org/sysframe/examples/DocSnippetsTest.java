package org.sysframe.examples;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The docs cannot rot silently: every {@code ```java} block of every Markdown page of the repository
 * (README.md, docs/, the modules' READMEs) must appear, whitespace-normalised, in a source the build
 * compiles: this module's test sources (compiled by {@code mvn test-compile}, and run by the
 * *ExamplesTest classes against real servers) or {@code examples/src/module/module-info.java}
 * (compiled by {@link IntegrationExampleTest}). A block meant as a fragment must still be found
 * verbatim inside one. A failure names the page, the line and the block's first line. Relative links
 * must point at a file of the repository, and an anchor at a heading of it.
 */
class DocSnippetsTest {
    private static final Path ROOT = Path.of(System.getProperty("sysframe.root", "..")).toAbsolutePath().normalize();
    /** Where the compiled examples are, as the failure message names them. */
    private static final String WHERE =
            "examples/src/test/java (compiled by the build) or examples/src/module/module-info.java"
            + " (compiled by IntegrationExampleTest)";
    private static final Pattern FENCE = Pattern.compile("^ {0,3}(`{3,}|~{3,})\\s*([^\\s`]*).*$");
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

    /** A fenced block of a page: its language (the info string's first word), first line number and text. */
    record Block(Path page, int line, String language, String text) {
        String firstLine() {
            return text.lines().filter(l -> !l.isBlank()).findFirst().orElse("(empty)").strip();
        }

        String where() {
            return ROOT.relativize(page) + ":" + line;
        }
    }

    @Test
    void everyJavaBlockOfTheDocsIsInACompiledExample() throws IOException {
        List<Block> java = javaBlocks(pages());
        List<String> sources = compiledSources().stream().map(DocSnippetsTest::read).map(DocSnippetsTest::normalised)
                .toList();
        List<String> missing = missing(java, sources);
        System.out.println("doc snippets: " + java.size() + " ```java blocks in "
                + java.stream().map(Block::page).distinct().count()
                + " of " + pages().size() + " pages, searched in " + sources.size() + " compiled sources");
        assertTrue(missing.isEmpty(), missing.size() + " of " + java.size()
                + " ```java blocks of the docs are in no compiled example:\n"
                + String.join("\n", missing));

        // The README shows one client and one server, and the other pages theirs: the check must have found them.
        long inReadme = java.stream().filter(b -> b.page().equals(ROOT.resolve("README.md"))).count();
        assertTrue(inReadme >= 2, "README.md: " + inReadme
                + " ```java blocks found, expected the client and the server");
        assertTrue(java.size() >= 10, "only " + java.size() + " ```java blocks found in " + pages());
    }

    /** The check itself: one character of code changed in a snippet, and it is no longer found. */
    @Test
    void aChangedSnippetIsReported() throws IOException {
        Block client = javaBlocks(List.of(ROOT.resolve("README.md"))).getFirst();
        List<String> sources = compiledSources().stream().map(DocSnippetsTest::read).map(DocSnippetsTest::normalised)
                .toList();
        assertEquals(List.of(), missing(List.of(client), sources), "the README's first snippet as it is");

        Block changed = new Block(client.page(), client.line(), client.language(),
                client.text().replaceFirst("32", "33"));
        assertEquals(List.of(client.where() + ": `" + client.firstLine() + "` is not in " + WHERE),
                missing(List.of(changed), sources), "the same snippet with 32 changed to 33");
        // Re-indenting or re-wrapping is not a change.
        Block reflowed = new Block(client.page(), client.line(), client.language(),
                client.text().replace("\n", "\n\t  ").replace(" = ", "\n=\n"));
        assertEquals(List.of(), missing(List.of(reflowed), sources));
        // Nor is a comment's place or wording; a "//" inside a string is code.
        Block recommented = new Block(client.page(), client.line(), client.language(),
                client.text().replaceAll("//[^\n]*", "// said otherwise"));
        assertEquals(List.of(), missing(List.of(recommented), sources));
        assertEquals("f(\"a // b\"); g();", normalised("f(\"a // b\"); // c\n  g(); // d"));
    }

    @Test
    void relativeLinksPointAtFilesAndHeadingsOfTheRepository() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path page : pages()) {
            List<String> lines = Files.readAllLines(page);
            boolean inFence = false;
            for (int i = 0; i < lines.size(); i++) {
                if (FENCE.matcher(lines.get(i)).matches()) inFence = !inFence;
                if (inFence) continue;
                Matcher m = LINK.matcher(lines.get(i));
                while (m.find()) {
                    String target = m.group(1);
                    if (target.matches("[a-z]+:.*")) continue; // https:, mailto:
                    String where = ROOT.relativize(page) + ":" + (i + 1) + ": (" + target + ")";
                    int hash = target.indexOf('#');
                    String file = hash < 0 ? target : target.substring(0, hash);
                    Path to = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                    if (!to.startsWith(ROOT)) {
                        broken.add(where + " points outside the repository");
                    } else if (!Files.exists(to)) {
                        broken.add(where + ": no such file " + ROOT.relativize(to));
                    } else if (hash >= 0 && to.toString().endsWith(".md")
                            && !anchors(to).contains(target.substring(hash + 1))) {
                        broken.add(where + ": no heading " + target.substring(hash) + " in " + ROOT.relativize(to)
                                + " " + anchors(to));
                    }
                }
            }
        }
        assertTrue(broken.isEmpty(), String.join("\n", broken));
    }

    /** `./sysframe results` rewrites what lies between these two lines, and refuses a README without them once each. */
    @Test
    void theReadmeKeepsItsResultsBlock() throws IOException {
        List<String> lines = Files.readAllLines(ROOT.resolve("README.md"));
        List<Integer> begin = new ArrayList<>(), end = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("<!-- results:begin ")) begin.add(i);
            if (lines.get(i).equals("<!-- results:end -->")) end.add(i);
        }
        assertEquals(1, begin.size(), "lines '<!-- results:begin ...' in README.md");
        assertEquals(1, end.size(), "lines '<!-- results:end -->' in README.md");
        assertTrue(begin.getFirst() < end.getFirst(), "the results block begins before it ends");
    }

    /** Every Markdown page of the repository, build output and hidden directories aside. */
    static List<Path> pages() throws IOException {
        try (Stream<Path> all = Files.walk(ROOT)) {
            return all.filter(p -> p.toString().endsWith(".md") && Files.isRegularFile(p))
                    .filter(p -> {
                        for (Path part : ROOT.relativize(p)) {
                            String s = part.toString();
                            if (s.startsWith(".") || s.equals("target") || s.equals("results")) return false;
                        }
                        return true;
                    })
                    .sorted().toList();
        }
    }

    /** The sources the build compiles that a snippet may live in. */
    static List<Path> compiledSources() throws IOException {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> tests = Files.walk(ROOT.resolve("examples/src/test/java"))) {
            tests.filter(p -> p.toString().endsWith(".java")).sorted().forEach(out::add);
        }
        out.add(IntegrationExampleTest.MODULE_INFO);
        return out;
    }

    /** The ```java (or ~~~java) blocks of these pages; an unclosed fence fails, naming where it opened. */
    static List<Block> javaBlocks(List<Path> pages) throws IOException {
        List<Block> out = new ArrayList<>();
        for (Path page : pages) {
            List<String> lines = Files.readAllLines(page);
            String fence = null, language = null;
            int opened = 0;
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (fence == null) {
                    Matcher m = FENCE.matcher(line);
                    if (m.matches()) {
                        fence = m.group(1);
                        language = m.group(2).toLowerCase(Locale.ROOT);
                        opened = i + 1;
                        text.setLength(0);
                    }
                } else if (closes(line, fence)) {
                    if (language.equals("java")) out.add(new Block(page, opened, language, text.toString()));
                    fence = null;
                } else {
                    text.append(line).append('\n');
                }
            }
            assertEquals(null, fence, ROOT.relativize(page) + ":" + opened + ": a fence that is never closed");
        }
        return out;
    }

    /** Whether line closes a block opened by fence: the same character, at least as many, nothing else. */
    private static boolean closes(String line, String fence) {
        String s = line.strip();
        return s.length() >= fence.length() && s.chars().allMatch(c -> c == fence.charAt(0));
    }

    /**
     * One line per block found in none of the sources (normalised), naming the page, the line and the block's first
     * line.
     */
    static List<String> missing(List<Block> blocks, List<String> normalisedSources) {
        List<String> out = new ArrayList<>();
        for (Block b : blocks) {
            String snippet = normalised(b.text());
            if (snippet.isEmpty()) {
                out.add(b.where() + ": an empty ```java block");
            } else if (normalisedSources.stream().noneMatch(s -> s.contains(snippet))) {
                out.add(b.where() + ": `" + b.firstLine() + "` is not in " + WHERE);
            }
        }
        return out;
    }

    /**
     * The code without its line comments, every run of whitespace as one space, none at the ends nor next to
     * {@code . ( ) [ ] , ;}: indentation, line breaks and where a {@code //} comment sits (after the code in a page,
     * above it in a source kept to 120 columns) do not count; the code does.
     */
    static String normalised(String text) {
        StringBuilder code = new StringBuilder(text.length());
        char quote = 0;
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            if (quote != 0) {
                if (ch == '\\' && i + 1 < text.length()) {
                    code.append(ch).append(text.charAt(++i));
                    continue;
                }
                if (ch == quote || ch == '\n') quote = 0;
            } else if (ch == '"' || ch == '\'') {
                quote = ch;
            } else if (ch == '/' && i + 1 < text.length() && text.charAt(i + 1) == '/') {
                while (i < text.length() && text.charAt(i) != '\n') i++;
                code.append('\n');
                continue;
            }
            code.append(ch);
        }
        // A line broken before ".x()" or after "(" is the same code as one that is not.
        return code.toString().replaceAll("\\s+", " ").replaceAll(" (?=[.)\\],;])|(?<=[(\\[.]) ", "").strip();
    }

    /**
     * The anchors of a page's headings, as GitHub makes them (lower case, punctuation dropped, spaces as '-', repeats
     * numbered).
     */
    static Set<String> anchors(Path page) {
        Set<String> out = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean inFence = false;
        for (String line : read(page).split("\n")) {
            if (FENCE.matcher(line).matches()) inFence = !inFence;
            if (inFence || !line.matches("#{1,6} .*")) continue;
            String slug = line.replaceFirst("^#+ ", "").strip().toLowerCase(Locale.ROOT)
                    .replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
            int n = seen.merge(slug, 1, Integer::sum);
            out.add(n == 1 ? slug : slug + "-" + (n - 1));
        }
        return out;
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
