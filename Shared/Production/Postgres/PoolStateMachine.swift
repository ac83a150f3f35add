/// What a caller of the pool gets: a connection to use, or the right to open a new one.
enum PoolGrant<Connection> {
    case connection(Connection)
    case openSlot
}

extension PoolGrant: Sendable where Connection: Sendable {}

/// The pool's bookkeeping as a pure value type (no I/O, no locks), so it can be tested alone.
/// `PostgresClient` keeps one inside a `Mutex` and performs the returned actions outside the lock.
///
/// Invariant: `open` counts idle connections, connections in use and slots being opened, and
/// never exceeds `maxConnections`.
struct PoolStateMachine<Connection, Waiter> {
    typealias Grant = PoolGrant<Connection>

    enum AcquireAction {
        case grant(Grant)
        /// The waiter was queued; it will be resumed by `release`, `discard` or `openFailed`.
        case wait
        case closed
    }

    enum ReturnAction {
        /// Nothing to do (connection kept idle, or slot freed with nobody waiting).
        case none
        /// Hand `grant` to `waiter`.
        case resume(Waiter, Grant)
        /// Close this connection (pool shut down).
        case close(Connection)
    }

    let maxConnections: Int
    private(set) var idle: [Connection] = []
    private(set) var open = 0
    private(set) var waiters: [(id: UInt64, waiter: Waiter)] = []
    private(set) var isClosed = false

    init(maxConnections: Int) {
        precondition(maxConnections > 0, "a pool needs at least one connection")
        self.maxConnections = maxConnections
    }

    /// Takes an idle connection, or a slot to open one, or queues `waiter` (with `id`).
    mutating func acquire(id: UInt64, waiter: Waiter) -> AcquireAction {
        if isClosed { return .closed }
        if let connection = idle.popLast() { return .grant(.connection(connection)) }
        if open < maxConnections {
            open += 1
            return .grant(.openSlot)
        }
        waiters.append((id, waiter))
        return .wait
    }

    /// Like `acquire` but never queues: nil when the caller would have to wait.
    mutating func acquireImmediately() -> Grant? {
        if isClosed { return nil }
        if let connection = idle.popLast() { return .connection(connection) }
        if open < maxConnections {
            open += 1
            return .openSlot
        }
        return nil
    }

    /// Removes a waiter that timed out or was cancelled; nil if it was already resumed.
    mutating func removeWaiter(id: UInt64) -> Waiter? {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
        return waiters.remove(at: index).waiter
    }

    /// A healthy connection comes back: the oldest waiter gets it, or it goes idle.
    mutating func release(_ connection: Connection) -> ReturnAction {
        if isClosed {
            open -= 1
            return .close(connection)
        }
        if !waiters.isEmpty { return .resume(waiters.removeFirst().waiter, .connection(connection)) }
        idle.append(connection)
        return .none
    }

    /// A connection was thrown away (broken, or left inside a transaction): its slot is freed and
    /// handed to the oldest waiter, who will open a replacement.
    mutating func discard() -> ReturnAction {
        slotFreed()
    }

    /// Opening a connection in a granted slot failed: the slot is freed the same way.
    mutating func openFailed() -> ReturnAction {
        slotFreed()
    }

    private mutating func slotFreed() -> ReturnAction {
        if !isClosed, !waiters.isEmpty { return .resume(waiters.removeFirst().waiter, .openSlot) }
        open -= 1
        return .none
    }

    /// Closes the pool: returns the idle connections to close and the waiters to fail.
    mutating func shutdown() -> (idle: [Connection], waiters: [Waiter]) {
        isClosed = true
        let result = (idle, waiters.map(\.waiter))
        open -= idle.count
        idle = []
        waiters = []
        return result
    }
}
