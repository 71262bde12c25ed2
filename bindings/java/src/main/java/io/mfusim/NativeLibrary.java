package io.mfusim;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Loads the JNI library {@code libmfusim_jni} (libmfusim and the C++ runtime are linked into it statically, so it
 * is the only native file needed).
 *
 * <p>Where it is looked for, in order, the first that loads winning:
 * <ol>
 *   <li>the system property {@code mfusim.library.path}: a directory holding {@code libmfusim_jni.so}, or the file
 *       itself;</li>
 *   <li>the environment variable {@code MFUSIM_JNI_LIBRARY}: the same;</li>
 *   <li>the copy this jar carries for the running platform, {@code io/mfusim/native/<os>-<arch>/}
 *       (e.g. {@code linux-x86_64}), extracted to a temporary file (in {@code mfusim.tmpdir}, else
 *       {@code java.io.tmpdir}) that is deleted when the JVM exits, as sqlite-jdbc and netty do;</li>
 *   <li>{@code java.library.path}, by {@code System.loadLibrary("mfusim_jni")}.</li>
 * </ol>
 * An explicit path (1 or 2) that does not load is an error at once: it is never silently replaced by another copy.
 * If nothing loads, the {@link UnsatisfiedLinkError} names every place tried and why each failed.
 */
public final class NativeLibrary {
    private NativeLibrary() {}

    private static final String NAME = "mfusim_jni";

    static {
        load0();
    }

    /** Loads the library if that has not happened yet; cheap after the first call. */
    public static void load() {}

    /** The platform directory of the bundled library: {@code linux-x86_64}, {@code macos-aarch64}, ... */
    static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (os.startsWith("linux")) os = "linux";
        else if (os.startsWith("mac") || os.startsWith("darwin")) os = "macos";
        else if (os.startsWith("windows")) os = "windows";
        if (arch.equals("amd64") || arch.equals("x86_64")) arch = "x86_64";
        else if (arch.equals("arm64") || arch.equals("aarch64")) arch = "aarch64";
        return os + "-" + arch;
    }

    private static void load0() {
        String explicit = System.getProperty("mfusim.library.path");
        String from = "system property mfusim.library.path";
        if (explicit == null || explicit.isEmpty()) {
            explicit = System.getenv("MFUSIM_JNI_LIBRARY");
            from = "environment variable MFUSIM_JNI_LIBRARY";
        }
        if (explicit != null && !explicit.isEmpty()) {
            File f = new File(explicit);
            if (f.isDirectory()) f = new File(f, System.mapLibraryName(NAME));
            try {
                System.load(f.getAbsolutePath());
                return;
            } catch (UnsatisfiedLinkError e) {
                throw error(List.of(from + " -> " + f.getAbsolutePath() + ": " + e.getMessage()));
            }
        }
        List<String> tried = new ArrayList<>();
        String resource = "/io/mfusim/native/" + platform() + "/" + System.mapLibraryName(NAME);
        try (InputStream in = NativeLibrary.class.getResourceAsStream(resource)) {
            if (in == null) {
                tried.add("jar resource " + resource + ": not in this jar (it carries the platform it was built on)");
            } else {
                String tmp = System.getProperty("mfusim.tmpdir", System.getProperty("java.io.tmpdir"));
                Path file = Files.createTempFile(Path.of(tmp), "libmfusim_jni-", ".so");
                file.toFile().deleteOnExit();
                Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
                try {
                    System.load(file.toAbsolutePath().toString());
                    return;
                } catch (UnsatisfiedLinkError e) {
                    tried.add("jar resource " + resource + " extracted to " + file + ": " + e.getMessage());
                }
            }
        } catch (IOException e) {
            tried.add("jar resource " + resource + ": extraction failed: " + e);
        }
        try {
            System.loadLibrary(NAME);
            return;
        } catch (UnsatisfiedLinkError e) {
            tried.add("java.library.path (" + System.getProperty("java.library.path") + "): " + e.getMessage());
        }
        throw error(tried);
    }

    private static UnsatisfiedLinkError error(List<String> tried) {
        StringBuilder b = new StringBuilder("libmfusim: could not load the JNI library " + System.mapLibraryName(NAME)
                + " for platform " + platform() + ". Tried:");
        for (String t : tried) b.append("\n  - ").append(t);
        b.append("\nSet -Dmfusim.library.path=<dir or file> (or MFUSIM_JNI_LIBRARY) to a libmfusim_jni built for this"
                + " platform (CMake target mfusim_jni).");
        return new UnsatisfiedLinkError(b.toString());
    }
}
