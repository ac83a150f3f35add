import Foundation

/// Where a child's standard input, output or error goes.
public enum StandardStream: Sendable {
    /// This process's own stream.
    case inherit
    /// `/dev/null`.
    case null
    /// An open file (its descriptor is duplicated into the child; the caller still owns the handle).
    case file(FileHandle)
    /// A new pipe: this process reads its other end from `Subprocess.standardOutput` / `.standardError`.
    case pipe
}
