import Synchronization

/// The `sendId` of each job's outcome (`PushOutcome.sendId`): a random prefix per process and a counter, so two sendings
/// of one job (again after a crash, by a second replica, or two copies in flight together) never share one, while a
/// replayed outcome message keeps its own. The delivery record counts each sending once by it.
final class OutcomeSendIDs: Sendable {
    private let prefix: Int64
    private let counter = Atomic<Int64>(0)

    /// `prefix`: 31 bits, random per process unless given (tests).
    init(prefix: Int64 = Int64.random(in: 1...Int64(Int32.max))) {
        self.prefix = (prefix & 0x7FFF_FFFF) << 32
    }

    /// The next sending's id.
    func next() -> Int64 {
        prefix | (counter.add(1, ordering: .relaxed).newValue & 0xFFFF_FFFF)
    }
}
