package org.sysframe.transport;

import org.junit.jupiter.api.Test;
import org.sysframe.transport.internal.lookup.TypeTable;
import org.sysframe.transport.support.LoopsIndependent;
import org.sysframe.unix.UnixSocket;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.module.ModuleFinder;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Nothing internal in the API: no public or protected signature of a public type of an exported
 * package (the transport's, and the native bindings' it exports transitively) names a type of a
 * package its module does not export: not a parameter, return, field, exception, supertype or type
 * argument. Read by reflection over the compiled classes of the exported packages.
 */
@LoopsIndependent
class PublicApiTest {
    private static final List<String> EXPORTED = List.of("org.sysframe.transport", "org.sysframe.transport.wire");
    /**
     * Every package the project's modules export, read from their module descriptors (the tests run
     * on the class path, where no module says what it exports).
     */
    private static final Set<String> EXPORTS = exports();

    private static Set<String> exports() {
        Set<String> out = new HashSet<>();
        for (Class<?> c : List.of(GroutClient.class, UnixSocket.class)) {
            try {
                Path at = Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
                for (var ref : ModuleFinder.of(at).findAll()) {
                    for (var e : ref.descriptor().exports()) if (!e.isQualified()) out.add(e.source());
                }
            } catch (URISyntaxException e) {
                throw new IllegalStateException(e);
            }
        }
        // The transport's own descriptor is compiled after the tests (see its pom): read its source.
        try {
            var exports = Pattern.compile("(?m)^\\s*exports\\s+([\\w.]+)\\s*;");
            var m = exports.matcher(Files.readString(Path.of("src/main/java/module-info.java")));
            while (m.find()) out.add(m.group(1));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (!out.containsAll(EXPORTED)
                || !out.contains("org.sysframe.unix")) throw new IllegalStateException("module descriptors not read: "
                        + out);
        return out;
    }

    @Test
    void noPublicSignatureOfAnExportedPackageNamesANonExportedType() throws Exception {
        List<String> leaks = new ArrayList<>();
        int types = 0;
        for (Class<?> c : exportedClasses()) {
            if (!Modifier.isPublic(c.getModifiers())) continue;
            types++;
            check(c, c.getGenericSuperclass(), "extends", leaks);
            for (Type t : c.getGenericInterfaces()) check(c, t, "implements", leaks);
            for (Field f : c.getDeclaredFields()) if (visible(f)) check(c, f.getGenericType(), "field " + f.getName(),
                    leaks);
            for (Method m : c.getDeclaredMethods()) {
                if (!visible(m) || m.isSynthetic() || m.isBridge()) continue;
                check(c, m.getGenericReturnType(), m.getName() + " returns", leaks);
                checkExecutable(c, m, leaks);
            }
            for (var k : c.getDeclaredConstructors()) if (visible(k)) checkExecutable(c, k, leaks);
            if (c.isRecord()) for (RecordComponent rc : c.getRecordComponents()) check(c, rc.getGenericType(),
                    "component " + rc.getName(), leaks);
        }
        assertTrue(types > 20, "the exported packages' public types were found: " + types);
        assertEquals(List.of(), leaks, "public signatures naming a type the module does not export");
    }

    /**
     * An application makes only what the API means it to make: a public class of an exported package
     * whose objects the library makes (views, replies, options, message tables, clients, servers) has no
     * public or protected constructor, so none sneaks back as Java's implicit one (exceptions, records,
     * enums and interfaces aside). Today no class is meant to be made with {@code new}; one that is
     * would be listed here, on purpose.
     */
    @Test
    void onlyTheClassesMeantToBeMadeByApplicationsHaveAPublicConstructor() throws Exception {
        Set<String> withConstructor = new TreeSet<>();
        int classes = 0;
        for (Class<?> c : exportedClasses()) {
            if (!Modifier.isPublic(c.getModifiers()) || c.isInterface() || c.isEnum() || c.isRecord()
                    || Throwable.class.isAssignableFrom(c) || c.isAnnotation()) continue;
            classes++;
            for (var k : c.getDeclaredConstructors()) if (visible(k)) withConstructor.add(c.getSimpleName());
        }
        assertTrue(classes > 10, "the exported packages' public classes were found: " + classes);
        assertEquals(Set.of(), withConstructor, "public classes an application could make with new");
    }

    @Test
    void theCheckSeesAnInternalTypeWhereOneIsNamed() {
        List<String> leaks = new ArrayList<>();
        check(PublicApiTest.class, TypeTable.class, "probe", leaks);
        assertEquals(1, leaks.size(), "a type of a non-exported package is reported");
        leaks.clear();
        check(PublicApiTest.class, GroutClient.class, "probe", leaks);
        assertEquals(0, leaks.size(), "a type of an exported package is not");
    }

    private static boolean visible(Member m) {
        return Modifier.isPublic(m.getModifiers()) || Modifier.isProtected(m.getModifiers());
    }

    private static void checkExecutable(Class<?> c, Executable e, List<String> leaks) {
        for (Type t : e.getGenericParameterTypes()) check(c, t, e.getName() + " takes", leaks);
        for (Type t : e.getGenericExceptionTypes()) check(c, t, e.getName() + " throws", leaks);
    }

    private static void check(Class<?> owner, Type t, String where, List<String> leaks) {
        if (t == null) return;
        switch (t) {
            case Class<?> k -> {
                while (k.isArray()) k = k.getComponentType();
                if (k.isPrimitive()) return;
                String pkg = k.getPackageName();
                if (pkg.startsWith("org.sysframe.") && !EXPORTS.contains(pkg)) leaks.add(owner.getName() + " " + where
                        + " " + k.getName());
            }
            case ParameterizedType p -> {
                check(owner, p.getRawType(), where, leaks);
                for (Type a : p.getActualTypeArguments()) check(owner, a, where, leaks);
            }
            case GenericArrayType g -> check(owner, g.getGenericComponentType(), where, leaks);
            case WildcardType w -> {
                for (Type b : w.getUpperBounds()) check(owner, b, where, leaks);
                for (Type b : w.getLowerBounds()) check(owner, b, where, leaks);
            }
            case TypeVariable<?> v -> {
                for (Type b : v.getBounds()) check(owner, b, where, leaks);
            }
            default -> leaks.add(owner.getName() + " " + where + " an unknown kind of type " + t);
        }
    }

    /** Every class of the exported packages, from the transport's compiled classes. */
    private static List<Class<?>> exportedClasses() throws IOException, URISyntaxException, ClassNotFoundException {
        Path root = Path.of(GroutClient.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        TreeSet<String> names = new TreeSet<>();
        for (String pkg : EXPORTED) {
            Path dir = root.resolve(pkg.replace('.', '/'));
            try (Stream<Path> files = Files.list(dir)) {
                files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".class")
                        && !n.equals("module-info.class")
                        && !n.equals("package-info.class")).forEach(n ->
                                names.add(pkg + "." + n.substring(0, n.length() - 6)));
            }
        }
        List<Class<?>> out = new ArrayList<>();
        for (String n : names) out.add(Class.forName(n, false, GroutClient.class.getClassLoader()));
        return out;
    }
}
