import Kafka
import Testing

/// Issue 30: the guard for a member stranded outside its group (pure logic, time passed in).
@Suite struct KafkaMembershipWatchTests {
    static let start = ContinuousClock.now
    static func at(_ seconds: Int) -> ContinuousClock.Instant { start + .seconds(seconds) }
    static func lag(_ committed: Int64?, end: Int64) -> [KafkaPartitionLag] {
        [KafkaPartitionLag(topic: "t", partition: 0, committed: committed, endOffset: end, lag: end - (committed ?? 0))]
    }
    static let empty = KafkaGroupDescription(group: "g", state: "Empty", members: 0, protocolName: "")
    static let stable = KafkaGroupDescription(group: "g", state: "Stable", members: 2, protocolName: "range")

    @Test func aMemberOutsideAnEmptyGroupWithLagIsStrandedAfterTheBound() {
        var watch = KafkaMembershipWatch(bound: .seconds(30))
        watch.observe(holdsPartitions: false, now: Self.at(0))
        #expect(watch.sampled(lag: Self.lag(10, end: 15), group: Self.empty, now: Self.at(10)) == .member)
        #expect(watch.sampled(lag: Self.lag(10, end: 20), group: Self.empty, now: Self.at(29)) == .member)
        guard case .stranded(let reason) = watch.sampled(lag: Self.lag(10, end: 25), group: Self.empty, now: Self.at(31)) else {
            Issue.record("not stranded")
            return
        }
        #expect(reason.contains("no member"))
    }

    @Test("a broker that calls the group Dead is not believed; each rebuild doubles the bound until partitions are held")
    func deadIsNotTrustedAndRebuildsBackOff() {
        var watch = KafkaMembershipWatch(bound: .seconds(10))
        watch.observe(holdsPartitions: false, now: Self.at(0))
        let dead = KafkaGroupDescription(group: "g", state: "Dead", members: 0, protocolName: "")
        #expect(watch.sampled(lag: Self.lag(nil, end: 3), group: dead, now: Self.at(1)) == .member)
        #expect(watch.sampled(lag: Self.lag(5, end: 9), group: dead, now: Self.at(11)) == .member)  // commits moved
        #expect(watch.sampled(lag: Self.lag(5, end: 9), group: dead, now: Self.at(12)) != .member)  // then stood still
        watch.rebuilt()
        #expect(watch.currentBound == .seconds(20))
        watch.observe(holdsPartitions: false, now: Self.at(13))
        #expect(watch.sampled(lag: Self.lag(5, end: 9), group: dead, now: Self.at(14)) == .member)
        #expect(watch.sampled(lag: Self.lag(5, end: 9), group: dead, now: Self.at(30)) == .member)
        #expect(watch.sampled(lag: Self.lag(5, end: 9), group: dead, now: Self.at(34)) != .member)
        watch.observe(holdsPartitions: true, now: Self.at(40))
        #expect(watch.currentBound == .seconds(10))
    }

    @Test("an idle member of a group whose owners commit is never stranded")
    func idleMemberWhileOthersWork() {
        var watch = KafkaMembershipWatch(bound: .seconds(30))
        watch.observe(holdsPartitions: false, now: Self.at(0))
        for step in 1...10 {
            let committed = Int64(step * 5)
            #expect(watch.sampled(lag: Self.lag(committed, end: committed + 3), group: Self.stable, now: Self.at(step * 10)) == .member)
        }
    }

    @Test func stalledCommitsStrandTheMemberWhereTheBrokerDoesNotDescribeGroups() {
        var watch = KafkaMembershipWatch(bound: .seconds(30))
        watch.observe(holdsPartitions: false, now: Self.at(0))
        #expect(watch.sampled(lag: Self.lag(7, end: 9), group: nil, now: Self.at(5)) == .member)
        #expect(watch.sampled(lag: Self.lag(7, end: 12), group: nil, now: Self.at(20)) == .member)
        #expect(watch.sampled(lag: Self.lag(7, end: 14), group: nil, now: Self.at(35)) != .member)
    }

    @Test func noLagOrAnAssignmentOrNoReadingKeepsItAMember() {
        var watch = KafkaMembershipWatch(bound: .seconds(30))
        watch.observe(holdsPartitions: false, now: Self.at(0))
        #expect(watch.sampled(lag: Self.lag(9, end: 9), group: Self.empty, now: Self.at(40)) == .member)
        #expect(watch.sampled(lag: nil, group: nil, now: Self.at(50)) == .member)
        watch.observe(holdsPartitions: true, now: Self.at(55))
        #expect(watch.sampled(lag: Self.lag(1, end: 9), group: Self.empty, now: Self.at(60)) == .member)
        // The empty period starts again after the assignment: another full bound is needed.
        watch.observe(holdsPartitions: false, now: Self.at(61))
        #expect(watch.sampled(lag: Self.lag(1, end: 9), group: Self.empty, now: Self.at(80)) == .member)
        #expect(watch.sampled(lag: Self.lag(1, end: 9), group: Self.empty, now: Self.at(92)) != .member)
    }
}
