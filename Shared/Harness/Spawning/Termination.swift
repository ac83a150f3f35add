#if canImport(Glibc)
import Glibc
#endif

/// How a child ended: its exit code, or the signal that killed it.
public enum Termination: Sendable, Hashable, CustomStringConvertible {
    case exited(Int32)
    case signaled(Int32)

    /// The exit code, or the signal number (what `Foundation.Process.terminationStatus` reports).
    public var status: Int32 {
        switch self {
        case .exited(let code): code
        case .signaled(let signal): signal
        }
    }

    /// "exit 0", "signal 15 (Terminated)".
    public var description: String {
        switch self {
        case .exited(let code): "exit \(code)"
        case .signaled(let signal): "signal \(signal) (\(String(cString: strsignal(signal))))"
        }
    }

    /// Decodes a `waitpid` status word.
    init(waitStatus: Int32) {
        let signal = waitStatus & 0x7f
        self = signal == 0 ? .exited((waitStatus >> 8) & 0xff) : .signaled(signal)
    }
}
