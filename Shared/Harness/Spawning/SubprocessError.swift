#if canImport(Glibc)
import Glibc
#endif

/// Why a child could not be started.
public enum SubprocessError: Error, Sendable, CustomStringConvertible {
    /// `posix_spawn` refused (no such file, not executable, out of processes, …).
    case spawnFailed(executable: String, errno: Int32)
    /// A pipe or `/dev/null` wiring could not be set up.
    case wiringFailed(executable: String, step: String, errno: Int32)

    public var description: String {
        switch self {
        case .spawnFailed(let executable, let code):
            "cannot start \(executable): \(String(cString: strerror(code)))"
        case .wiringFailed(let executable, let step, let code):
            "cannot start \(executable): \(step) failed: \(String(cString: strerror(code)))"
        }
    }
}
