package io.kairos.core.api;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The extension point Kairos declares, kept so by the build: every public type of the core is
 * marked either {@link PublicEvolving} or {@link Internal}; the public-evolving set is the one
 * listed here (widening it is a change to this list, made on purpose); and what a public-evolving
 * type shows users (its public methods' parameters and results, its public constructors) is itself
 * public-evolving, so that a user who builds on the declared types never has to touch an internal
 * one.
 */
public class DeclaredApiTest {
    private static final Path SOURCES = Path.of("src/main/java");
    private static final Pattern PUBLIC_TYPE = Pattern.compile("^public (?:final |abstract |sealed )*(?:class|interface|record|enum|@interface) (\\w+)", Pattern.MULTILINE);
    private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);

    /**
     * The declared extension point: what a policy, a placement or a device is written against. The
     * device itself ({@code io.kairos.wire.device.Device} and its factory) is declared in the wire
     * module, whose test checks it with {@link #internalsShown}.
     */
    static final Set<String> DECLARED = Set.of(
            "io.kairos.core.scheduling.SchedulingPolicy", "io.kairos.core.scheduling.GroupView", "io.kairos.core.scheduling.RequestQueue",
            "io.kairos.core.scheduling.DeviceView", "io.kairos.core.scheduling.DeviceChoice", "io.kairos.core.scheduling.Dispatch",
            "io.kairos.core.scheduling.QueueIndex", "io.kairos.core.scheduling.PlacementPolicy", "io.kairos.core.scheduling.PolicyParams",
            "io.kairos.core.scheduling.ParamReader", "io.kairos.core.scheduling.BatchReport", "io.kairos.core.scheduling.PolicyProvider",
            "io.kairos.core.model.ModelSpec", "io.kairos.core.model.LatencyProfile", "io.kairos.core.model.InputSpec", "io.kairos.core.model.ModelCatalog",
            "io.kairos.core.scheduling.PerModel", "io.kairos.core.scheduling.ControlInputs", "io.kairos.core.scheduling.PublishedNetwork",
            "io.kairos.core.model.HardwareType", "io.kairos.core.model.HardwareProfile", "io.kairos.core.model.EnergyProfile",
            "io.kairos.core.request.Request", "io.kairos.core.device.Eviction");

    /** Every public top-level type of the core's sources but the two annotations. */
    static List<String> publicTypes(Path sources) throws IOException {
        List<String> types = new ArrayList<>();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String text = Files.readString(f);
                Matcher t = PUBLIC_TYPE.matcher(text);
                Matcher p = PACKAGE.matcher(text);
                if (t.find() && p.find() && !p.group(1).equals("io.kairos.core.api")) types.add(p.group(1) + "." + t.group(1));
            }
        }
        return types;
    }

    /** The types a marked-public-evolving type shows users that are neither public-evolving nor outside the core. */
    public static Set<String> internalsShown(Class<?> type) {
        Set<String> shown = new TreeSet<>();
        List<Executable> members = new ArrayList<>(List.of(type.getDeclaredMethods()));
        for (Constructor<?> c : type.getDeclaredConstructors()) members.add(c);
        for (Executable m : members) {
            if (!Modifier.isPublic(m.getModifiers()) || m.isSynthetic()) continue;
            List<Class<?>> types = new ArrayList<>(List.of(m.getParameterTypes()));
            if (m instanceof Method method) types.add(method.getReturnType());
            for (Class<?> c : types) {
                while (c.isArray()) c = c.getComponentType();
                if (c.getName().startsWith("io.kairos.core.") && !declared(c)) shown.add(type.getSimpleName() + "#" + m.getName() + " shows " + c.getName());
            }
        }
        return shown;
    }

    /** Public-evolving itself, or nested in such a type. */
    private static boolean declared(Class<?> c) {
        for (Class<?> at = c; at != null; at = at.getEnclosingClass()) {
            if (at.isAnnotationPresent(PublicEvolving.class)) return true;
        }
        return false;
    }

    @Test
    void everyPublicTypeIsMarkedOneWayOrTheOther() throws Exception {
        List<String> unmarked = new ArrayList<>();
        List<String> both = new ArrayList<>();
        for (String name : publicTypes(SOURCES)) {
            Class<?> c = Class.forName(name);
            boolean api = c.isAnnotationPresent(PublicEvolving.class);
            boolean internal = c.isAnnotationPresent(Internal.class);
            if (!api && !internal) unmarked.add(name);
            if (api && internal) both.add(name);
        }
        assertThat(unmarked).as("public types marked neither @PublicEvolving nor @Internal (package-private where they can be)").isEmpty();
        assertThat(both).as("marked both").isEmpty();
    }

    @Test
    void thePublicEvolvingTypesAreTheDeclaredOnes() throws Exception {
        Set<String> marked = new TreeSet<>();
        for (String name : publicTypes(SOURCES)) {
            if (Class.forName(name).isAnnotationPresent(PublicEvolving.class)) marked.add(name);
        }
        assertThat(marked).containsExactlyInAnyOrderElementsOf(DECLARED);
    }

    @Test
    void aDeclaredTypeShowsUsersOnlyDeclaredTypes() throws Exception {
        Set<String> shown = new TreeSet<>();
        for (String name : DECLARED) shown.addAll(internalsShown(Class.forName(name)));
        assertThat(shown).isEmpty();
    }

    /** The checks fail on what they guard against: an unmarked public type, and a declared type that shows an internal one. */
    @Test
    void theChecksFailOnAWrongTree(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path pkg = Files.createDirectories(dir.resolve("io/kairos/core/x"));
        Files.writeString(pkg.resolve("Loose.java"), "package io.kairos.core.x;\n\npublic final class Loose {}\n");
        Files.writeString(pkg.resolve("Hidden.java"), "package io.kairos.core.x;\n\nfinal class Hidden {}\n");
        assertThat(publicTypes(dir)).containsExactly("io.kairos.core.x.Loose");
        // GroupScheduler is internal: a declared type with a method taking it is reported.
        assertThat(internalsShown(ShowsInternal.class)).containsExactly("ShowsInternal#take shows io.kairos.core.scheduling.GroupScheduler");
        assertThat(internalsShown(io.kairos.core.scheduling.SchedulingPolicy.class)).isEmpty();
    }

    @PublicEvolving
    public interface ShowsInternal {
        void take(io.kairos.core.scheduling.GroupScheduler scheduler);
    }
}
