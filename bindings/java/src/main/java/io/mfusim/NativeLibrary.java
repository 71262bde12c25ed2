package io.mfusim;

import java.io.File;

/**
 * Loads the JNI library {@code libmfusim_jni.so} (which in turn loads {@code libmfusim.so.1} through its rpath).
 *
 * <p>Where it is looked for, in order:
 * <ol>
 *   <li>the system property {@code mfusim.library.path}: a directory holding {@code libmfusim_jni.so}, or the file
 *       itself (the tests set it to the build tree; an install puts the library in {@code <prefix>/lib});</li>
 *   <li>the environment variable {@code MFUSIM_JNI_LIBRARY}: the same;</li>
 *   <li>{@code java.library.path}, by {@code System.loadLibrary("mfusim_jni")}.</li>
 * </ol>
 */
public final class NativeLibrary {
    private NativeLibrary() {}

    private static final String NAME = "mfusim_jni";

    static {
        String where = System.getProperty("mfusim.library.path");
        if (where == null || where.isEmpty()) {
            where = System.getenv("MFUSIM_JNI_LIBRARY");
        }
        if (where != null && !where.isEmpty()) {
            File f = new File(where);
            if (f.isDirectory()) {
                f = new File(f, System.mapLibraryName(NAME));
            }
            System.load(f.getAbsolutePath());
        } else {
            System.loadLibrary(NAME);
        }
    }

    /** Loads the library if that has not happened yet; cheap after the first call. */
    public static void load() {}
}
