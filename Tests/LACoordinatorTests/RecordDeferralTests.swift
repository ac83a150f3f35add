import Foundation
import Kafka
import Runtime
import ServerTestSupport
import SharedTestSupport
import Testing
@testable import LACoordinator

/// Pushes first: the recorder waits while apns-sender has not committed past this replica's fan-outs, never longer than
/// its bound after the batch's oldest outcome, and never when told not to.
@Suite struct RecordDeferralTests {
    @Test("sending while any partition's committed offset has not passed the highest job produced on it")
    func sendingRule() {
        #expect(RecordDeferral.sending(produced: [0: 10, 1: 5], committed: [0: 11, 1: 5]))
        #expect(RecordDeferral.sending(produced: [0: 10], committed: [:]), "no commit yet: still sending")
        #expect(!RecordDeferral.sending(produced: [0: 10, 1: 5], committed: [0: 11, 1: 6, 2: 3]))
    }

    @Test("a young batch waits while a fan-out is unsent; an old one, or a zero bound, never")
    func bound() async throws {
        let admin = try KafkaAdmin(configuration: KafkaAdminConfiguration(bootstrapServers: TestServers.brokers), logger: TestSupport.quiet)
        // A read that fails counts as "not sending" (the service's rule); on a busy machine a new group's first read can
        // take longer than the service's 2 s, so the test allows it 30 s.
        let progress = SenderProgress(admin: admin, group: TestSupport.unique("nobody-sends"), topic: try await TestSupport.topic("la-jobs-defer"),
                                      readTimeout: .seconds(30), logger: TestSupport.quiet)
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_800_000_000))
        let now = Int64(1_800_000_000_000)
        let deferral = RecordDeferral(maximumDelay: .seconds(20), progress: progress, clock: clock)
        #expect(await !deferral.shouldWait(oldestFinishedAt: now), "nothing produced yet: nothing to wait for")
        deferral.produced([0: 41])
        #expect(await deferral.shouldWait(oldestFinishedAt: now - 5_000), "5 s old, the group has committed nothing")
        #expect(await !deferral.shouldWait(oldestFinishedAt: now - 20_000), "20 s old: written now")
        let never = RecordDeferral(maximumDelay: .zero, progress: progress, clock: clock)
        never.produced([0: 41])
        #expect(await !never.shouldWait(oldestFinishedAt: now))
    }
}
