import CSpawn
#if canImport(Glibc)
import Glibc
#endif

/// One `posix_spawn` call's C state: its file actions and attributes (freed in `deinit`), and the
/// argument and environment strings it passes. Used only inside `Subprocess.init`.
///
/// The child starts with every signal at its default action and none blocked (this process may
/// ignore SIGPIPE or block SIGTERM, and exec keeps both), descriptors 0–2 wired as asked and every
/// other descriptor closed (`closefrom(3)`), so no pipe or socket of this process leaks into it.
final class SpawnCall {
    private var actions = posix_spawn_file_actions_t()
    private var attributes = posix_spawnattr_t()
    let executable: String

    init(executable: String, newProcessGroup: Bool) {
        self.executable = executable
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        var flags = Int32(POSIX_SPAWN_SETSIGMASK) | Int32(POSIX_SPAWN_SETSIGDEF)
        if newProcessGroup {
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
    }

    deinit {
        posix_spawn_file_actions_destroy(&actions)
        posix_spawnattr_destroy(&attributes)
    }

    /// The child's `target` descriptor becomes a copy of `source`.
    func duplicate(_ source: Int32, onto target: Int32) throws(SubprocessError) {
        try check(posix_spawn_file_actions_adddup2(&actions, source, target), step: "dup2 onto \(target)")
    }

    /// The child's `target` descriptor is /dev/null.
    func null(onto target: Int32) throws(SubprocessError) {
        try check(posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0),
                  step: "open /dev/null onto \(target)")
    }

    /// Starts the child; its pid.
    func spawn(arguments: [String], environment: [String: String]?) throws(SubprocessError) -> pid_t {
        try check(sightscreen_spawn_add_close_from(&actions, 3), step: "closefrom(3)")
        let argv = CStringArray([executable] + arguments)
        let envp = environment.map { CStringArray($0.map { "\($0.key)=\($0.value)" }) }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv.pointers, envp?.pointers ?? environ)
        guard result == 0 else { throw .spawnFailed(executable: executable, errno: result) }
        return pid
    }

    private func check(_ result: Int32, step: String) throws(SubprocessError) {
        guard result == 0 else { throw .wiringFailed(executable: executable, step: step, errno: result) }
    }
}

/// A NULL-terminated `char *[]` owned by this value (the strings are freed in `deinit`).
private final class CStringArray {
    let pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    private let count: Int

    init(_ strings: [String]) {
        count = strings.count
        pointers = .allocate(capacity: count + 1)
        for (index, string) in strings.enumerated() { pointers[index] = strdup(string) }
        pointers[count] = nil
    }

    deinit {
        for index in 0..<count { free(pointers[index]) }
        pointers.deallocate()
    }
}
