import CLibPQ
import Synchronization
import Runtime

/// Owns one `PGcancel` (freed with `PQfreeCancel`) and sends cancel requests for the statement
/// that is running right now, never for a later one.
///
/// `@unchecked Sendable`: `PQcancel` is documented as safe to call from any thread; the
/// `operation` mutex makes sure a cancel is only sent while the operation that asked for it
/// is still running (the connection's queue clears it under the same lock when done).
final class PQCancel: @unchecked Sendable {
    private let handle: OpaquePointer?
    private let operation = LockedValue<UInt64?>(nil)

    init(taking handle: OpaquePointer?) {
        self.handle = handle
    }

    deinit {
        if let handle { PQfreeCancel(handle) }
    }

    /// Marks `id` as the running operation (called on the connection's queue).
    func begin(_ id: UInt64) { operation.withLock { $0 = id } }

    /// Clears the running operation (called on the connection's queue).
    func end() { operation.withLock { $0 = nil } }

    /// Asks the server to cancel the statement if operation `id` is still running.
    func cancel(_ id: UInt64) {
        operation.withLock { running in
            guard running == id, let handle else { return }
            var buffer = [CChar](repeating: 0, count: 256)
            _ = PQcancel(handle, &buffer, Int32(buffer.count))
        }
    }
}
