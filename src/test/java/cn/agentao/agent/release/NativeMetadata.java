package cn.agentao.agent.release;

import cn.agentao.agent.cli.Main;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
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
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The GraalVM reachability metadata the native image needs for Jackson, computed from the compiled classes:
 * <ul>
 *   <li>our code: every record, enum, and class carrying a Jackson annotation (records are what we hand to
 *       Jackson; enums and annotated classes are bound by name), with every type their components and fields
 *       refer to, the permitted subclasses of sealed types and the {@code @JsonSubTypes} they name;</li>
 *   <li>the libraries whose objects we serialise and which ship no metadata of their own: the MCP SDK's schema
 *       ({@code io.modelcontextprotocol.spec}), LangChain4j's messages ({@code dev.langchain4j.data.message},
 *       saved with sessions) and its Ollama client's DTOs. (LangChain4j's OpenAI and Anthropic modules, Reactor,
 *       JLine and the JSON schema validator ship their own under META-INF/native-image; Picocli's is generated
 *       at compile time by picocli-codegen.)</li>
 * </ul>
 * {@link NativeMetadataTest} fails when a computed class is missing from the file; {@link #main} rewrites it.
 */
public final class NativeMetadata {
    /** Where it is kept: native/, which the native profile in pom.xml hands to native-image (native/README.md). */
    static final Path FILE = Path.of("native/reachability-metadata.json");
    static final String OURS = "cn.agentao.agent.";
    /** Library packages whose classes Jackson binds through our code; each is listed with a class it holds. */
    static final List<Class<?>> LIBRARY_ANCHORS = List.of(
            io.modelcontextprotocol.spec.McpSchema.class,
            dev.langchain4j.data.message.UserMessage.class,
            dev.langchain4j.model.ollama.OllamaChatModel.class);
    /**
     * Packages bound through Jackson mix-ins (LangChain4j's message codec): the targets carry no annotation, so
     * every class there counts, and so does every type their state refers to.
     */
    static final Set<String> MIXIN_PACKAGES = Set.of("dev.langchain4j.data.message");
    /** Classes instantiated by name (slf4j's {@code slf4j.provider} property names our log provider). */
    static final List<String> BY_NAME = List.of("cn.agentao.agent.cli.TraceLogProvider");
    /** Resources read at run time (beyond META-INF/native-image files the libraries ship). */
    static final List<String> RESOURCE_GLOBS = List.of(
            "META-INF/services/**",
            "com/knuddels/jtokkit/*.tiktoken",
            "leap_second_dates.csv",
            "simplelogger.properties");

    private NativeMetadata() {}

    /** The names of every class Jackson may bind, sorted. */
    static Set<String> requiredTypes() throws IOException, URISyntaxException {
        Set<String> roots = new TreeSet<>();
        for (String name : classNames(codeRoot(Main.class), OURS)) roots.add(name);
        for (Class<?> anchor : LIBRARY_ANCHORS) {
            String pkg = anchor.getPackageName() + ".";
            for (String name : classNames(codeRoot(anchor), pkg)) {
                if (name.substring(pkg.length()).contains(".")) continue; // that package only, not sub-packages
                roots.add(name);
            }
        }
        Set<String> required = new TreeSet<>(BY_NAME);
        Deque<Class<?>> work = new ArrayDeque<>();
        for (String name : roots) {
            Class<?> c = load(name);
            if (c != null && (isBound(c) || (MIXIN_PACKAGES.contains(c.getPackageName()) && isCandidate(c)))) work.add(c);
        }
        Set<String> followAll = new TreeSet<>();
        while (!work.isEmpty()) {
            Class<?> c = work.pop();
            if (!required.add(c.getName())) continue;
            boolean all = MIXIN_PACKAGES.contains(c.getPackageName()) || followAll.contains(c.getName());
            for (Class<?> ref : referencedTypes(c)) {
                // Followed into data types only (not into, say, a client object a record happens to hold).
                if (!isCandidate(ref) || required.contains(ref.getName())) continue;
                if (all) followAll.add(ref.getName());
                if (all || isBound(ref) || ref.isSealed()) work.add(ref);
            }
        }
        return required;
    }

    /** A class Jackson handles reflectively: a record, an enum, or one with a Jackson annotation anywhere on it. */
    static boolean isBound(Class<?> c) {
        if (c.isAnnotation() || c.isSynthetic() || c.isAnonymousClass() || c.isLocalClass()) return false;
        if (c.isRecord() || c.isEnum()) return true;
        try {
            if (hasJackson(c)) return true;
            for (Field f : c.getDeclaredFields()) if (hasJackson(f)) return true;
            for (Method m : c.getDeclaredMethods()) if (hasJackson(m)) return true;
        } catch (LinkageError e) {
            return false; // refers to an optional dependency we do not ship
        }
        return false;
    }

    private static boolean hasJackson(AnnotatedElement e) {
        for (Annotation a : e.getDeclaredAnnotations()) {
            String n = a.annotationType().getName();
            if (n.startsWith("com.fasterxml.jackson.")) return true;
        }
        return false;
    }

    private static boolean isCandidate(Class<?> c) {
        if (c.isPrimitive() || c.isArray()) return false;
        String n = c.getName();
        if (n.startsWith("java.") || n.startsWith("javax.") || n.startsWith("jdk.") || n.startsWith("sun.")
                || n.startsWith("com.fasterxml.jackson.")) return false;
        return !c.isAnonymousClass() && !c.isSynthetic() && !c.isAnnotation();
    }

    /** Types reachable from a bound class's state: components, instance fields, subtypes. */
    private static Set<Class<?>> referencedTypes(Class<?> c) {
        Set<Class<?>> out = new java.util.LinkedHashSet<>();
        try {
            if (c.isRecord()) for (RecordComponent rc : c.getRecordComponents()) collect(rc.getGenericType(), out);
            for (Field f : c.getDeclaredFields()) if (!Modifier.isStatic(f.getModifiers())) collect(f.getGenericType(), out);
            if (c.isSealed()) out.addAll(List.of(c.getPermittedSubclasses()));
            JsonSubTypes sub = c.getAnnotation(JsonSubTypes.class);
            if (sub != null) for (JsonSubTypes.Type t : sub.value()) out.add(t.value());
        } catch (LinkageError | TypeNotPresentException e) {
            // a member whose type is an optional dependency: Jackson cannot bind it either
        }
        return out;
    }

    private static void collect(Type t, Set<Class<?>> out) {
        switch (t) {
            case Class<?> c -> { if (c.isArray()) collect(c.getComponentType(), out); else out.add(c); }
            case ParameterizedType p -> { collect(p.getRawType(), out); for (Type a : p.getActualTypeArguments()) collect(a, out); }
            case GenericArrayType g -> collect(g.getGenericComponentType(), out);
            case WildcardType w -> { for (Type b : w.getUpperBounds()) collect(b, out); for (Type b : w.getLowerBounds()) collect(b, out); }
            case TypeVariable<?> v -> { for (Type b : v.getBounds()) collect(b, out); }
            default -> { }
        }
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name, false, NativeMetadata.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
    }

    private static Path codeRoot(Class<?> c) throws URISyntaxException {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    /** Binary names of the classes under {@code prefix} in a directory or jar. */
    static List<String> classNames(Path root, String prefix) throws IOException {
        String dir = prefix.replace('.', '/');
        Stream<String> entries;
        if (Files.isDirectory(root)) {
            Path start = root.resolve(dir);
            if (!Files.isDirectory(start)) return List.of();
            try (Stream<Path> s = Files.walk(start)) {
                entries = s.map(p -> root.relativize(p).toString().replace('\\', '/')).toList().stream();
            }
        } else {
            try (JarFile jar = new JarFile(root.toFile())) {
                entries = jar.stream().map(java.util.zip.ZipEntry::getName).toList().stream();
            }
        }
        return entries.filter(e -> e.startsWith(dir) && e.endsWith(".class") && !e.endsWith("module-info.class")
                        && !e.endsWith("package-info.class"))
                .map(e -> e.substring(0, e.length() - ".class".length()).replace('/', '.'))
                .sorted().toList();
    }

    /** The file's content for {@code types}. */
    static String render(Set<String> types) throws IOException {
        ObjectNode root = Json.object();
        root.put("comment", "Written by cn.agentao.agent.release.NativeMetadata (test code); NativeMetadataTest keeps it complete.");
        ArrayNode reflection = root.putArray("reflection");
        for (String t : types) {
            reflection.addObject().put("type", t).put("allDeclaredConstructors", true).put("allDeclaredMethods", true)
                    .put("allDeclaredFields", true);
        }
        ArrayNode resources = root.putArray("resources");
        for (String g : RESOURCE_GLOBS) resources.addObject().put("glob", g);
        return Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n";
    }

    /** The types the file lists. */
    static Set<String> listedTypes(Path file) throws IOException {
        Set<String> out = new TreeSet<>();
        JsonNode root = Json.mapper().readTree(file.toFile());
        for (JsonNode r : root.path("reflection")) out.add(r.path("type").asText());
        return out;
    }

    /** Rewrites the file from the compiled classes (run from the project directory). */
    public static void main(String[] args) throws Exception {
        Path file = args.length > 0 ? Path.of(args[0]) : FILE;
        Files.createDirectories(file.getParent());
        Set<String> types = requiredTypes();
        Files.writeString(file, render(types));
        System.out.println("wrote " + types.size() + " types to " + file);
    }
}
