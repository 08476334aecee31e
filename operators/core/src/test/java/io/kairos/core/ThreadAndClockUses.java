package io.kairos.core;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.Handle;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Where compiled classes start or hand work to threads, take locks, or read the wall clock, read
 * from their bytecode (so that a use through a lambda, a method reference, a fully qualified name
 * or {@code var} is found as well as an imported one):
 *
 * <ul>
 *   <li>threads: any use of {@code Thread}, {@code ThreadFactory}, an executor ({@code Executor},
 *       {@code ExecutorService}, {@code Executors}, the thread pools, {@code ForkJoinPool} and its
 *       tasks), {@code Timer}; a {@code CompletableFuture} method that runs its work elsewhere
 *       (the {@code *Async} ones, {@code delayedExecutor}, {@code orTimeout},
 *       {@code completeOnTimeout}); a parallel stream;</li>
 *   <li>locks: a {@code synchronized} method or block, {@code java.util.concurrent.locks};</li>
 *   <li>the wall clock: {@code System.currentTimeMillis} and {@code nanoTime}, {@code now()} of a
 *       {@code java.time} type, {@code Clock.system*}.</li>
 * </ul>
 *
 * Thread-safe data ({@code ConcurrentHashMap}, atomics, {@code volatile}) is not a use: it starts
 * nothing and waits for no one. Shared with the other modules' tests through this module's test jar.
 */
public final class ThreadAndClockUses {
    private static final Set<String> THREAD_TYPES = Set.of(
            "java/lang/Thread", "java/lang/ThreadGroup", "java/util/concurrent/ThreadFactory",
            "java/util/concurrent/Executor", "java/util/concurrent/ExecutorService", "java/util/concurrent/ScheduledExecutorService",
            "java/util/concurrent/Executors", "java/util/concurrent/ThreadPoolExecutor", "java/util/concurrent/ScheduledThreadPoolExecutor",
            "java/util/concurrent/ForkJoinPool", "java/util/concurrent/ForkJoinTask", "java/util/concurrent/RecursiveTask",
            "java/util/concurrent/RecursiveAction", "java/util/Timer", "java/util/TimerTask");
    private static final Set<String> OFF_THREAD_FUTURE_METHODS = Set.of("delayedExecutor", "orTimeout", "completeOnTimeout");

    private ThreadAndClockUses() {}

    /** Every use in the classes under {@code classes} (a compiler's output folder), as "class#method: what". */
    public static List<String> in(Path classes) {
        List<String> uses = new ArrayList<>();
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".class")).sorted().toList()) {
                try (InputStream in = Files.newInputStream(f)) {
                    uses.addAll(in(in));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return uses;
    }

    /** Every use in the class file read from {@code classFile}. */
    public static List<String> in(InputStream classFile) throws IOException {
        Set<String> uses = new TreeSet<>();
        new ClassReader(classFile).accept(new Finder(uses), ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        return List.copyOf(uses);
    }

    /** What a reference to {@code owner.name} is, or null when it is none of the above. */
    static String what(String owner, String name) {
        if (THREAD_TYPES.contains(owner)) return "thread: " + owner.replace('/', '.') + (name == null ? "" : "." + name);
        if (owner.startsWith("java/util/concurrent/locks/")) return "lock: " + owner.replace('/', '.');
        if (name == null) return null;
        if (owner.equals("java/util/concurrent/CompletableFuture") && (name.endsWith("Async") || OFF_THREAD_FUTURE_METHODS.contains(name))) {
            return "thread: CompletableFuture." + name;
        }
        if ((name.equals("parallel") && owner.startsWith("java/util/stream/")) || name.equals("parallelStream")) return "thread: parallel stream";
        if (owner.equals("java/lang/System") && (name.equals("currentTimeMillis") || name.equals("nanoTime"))) return "wall clock: System." + name;
        if (owner.startsWith("java/time/") && (name.equals("now") || owner.equals("java/time/Clock") && name.startsWith("system"))) {
            return "wall clock: " + owner.substring("java/time/".length()) + "." + name;
        }
        return null;
    }

    private static final class Finder extends ClassVisitor {
        private final Set<String> uses;
        private String className;

        Finder(Set<String> uses) {
            super(Opcodes.ASM9);
            this.uses = uses;
        }

        @Override
        public void visit(int version, int access, String name, String signature, String superName, String[] interfaces) {
            className = name.replace('/', '.');
            type(className, superName);
            if (interfaces != null) for (String i : interfaces) type(className, i);
        }

        @Override
        public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
            descriptor(className + "." + name, Type.getType(descriptor));
            return null;
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
            String at = className + "#" + name;
            if ((access & Opcodes.ACC_SYNCHRONIZED) != 0) uses.add(at + ": lock: synchronized method");
            descriptor(at, Type.getMethodType(descriptor));
            return new MethodVisitor(Opcodes.ASM9) {
                @Override
                public void visitInsn(int opcode) {
                    if (opcode == Opcodes.MONITORENTER) uses.add(at + ": lock: synchronized block");
                }

                @Override
                public void visitTypeInsn(int opcode, String type) {
                    type(at, type);
                }

                @Override
                public void visitFieldInsn(int opcode, String owner, String field, String fieldDescriptor) {
                    type(at, owner);
                    descriptor(at, Type.getType(fieldDescriptor));
                }

                @Override
                public void visitMethodInsn(int opcode, String owner, String method, String methodDescriptor, boolean isInterface) {
                    member(at, owner, method);
                    descriptor(at, Type.getMethodType(methodDescriptor));
                }

                @Override
                public void visitInvokeDynamicInsn(String method, String methodDescriptor, Handle bootstrap, Object... arguments) {
                    descriptor(at, Type.getMethodType(methodDescriptor));
                    for (Object a : arguments) {
                        if (a instanceof Handle h) member(at, h.getOwner(), h.getName()); // a method reference: Thread::new
                    }
                }

                @Override
                public void visitLdcInsn(Object value) {
                    if (value instanceof Type t && t.getSort() == Type.OBJECT) type(at, t.getInternalName());
                }
            };
        }

        private void member(String at, String owner, String name) {
            String what = what(owner, name);
            if (what != null) uses.add(at + ": " + what);
        }

        private void type(String at, String internalName) {
            if (internalName == null) return;
            String what = what(internalName, null);
            if (what != null) uses.add(at + ": " + what);
        }

        private void descriptor(String at, Type t) {
            if (t.getSort() == Type.METHOD) {
                descriptor(at, t.getReturnType());
                for (Type p : t.getArgumentTypes()) descriptor(at, p);
            } else if (t.getSort() == Type.ARRAY) {
                descriptor(at, t.getElementType());
            } else if (t.getSort() == Type.OBJECT) {
                type(at, t.getInternalName());
            }
        }
    }
}
