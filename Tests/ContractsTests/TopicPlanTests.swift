import Foundation
import Testing
@testable import Contracts

@Suite struct TopicPlanTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func everyTopicIsDeclaredInTheOneTopicConfig() throws {
        let text = try String(contentsOf: Self.repositoryRoot.appendingPathComponent("deploy/topics.conf"), encoding: .utf8)
        let plan = try TopicPlan.parse(text)
        #expect(Set(plan.map(\.name)) == Set(Topic.allCases.map(\.name)))
        #expect(plan.allSatisfy { $0.partitions >= 1 })
    }

    @Test("every topic sets its size limit explicitly, above the bound of every message it carries")
    func sizeLimitsAreExplicitAndAboveTheMessageBounds() throws {
        let text = try String(contentsOf: Self.repositoryRoot.appendingPathComponent("deploy/topics.conf"), encoding: .utf8)
        let bounds = [Topic.fixtures.name: FixtureSnapshot.maximumBytes, Topic.matchEvents.name: MatchBusEvent.maximumBytes]
        for entry in try TopicPlan.parse(text) {
            let limit = try #require(entry.config["max.message.bytes"].flatMap { Int($0) }, "\(entry.name): no max.message.bytes")
            #expect(limit >= bounds[entry.name, default: MessageCodec.maximumMessageBytes] + 1024, "\(entry.name)")
            #expect(entry.config["compression.type"] == "producer", "\(entry.name)")
        }
    }

    @Test func parsesPartitionsAndConfigs() throws {
        let plan = try TopicPlan.parse("# comment\n\npush.jobs 24 retention.ms=1000 cleanup.policy=delete # tail\n")
        #expect(plan == [TopicPlanEntry(name: "push.jobs", partitions: 24, config: ["retention.ms": "1000", "cleanup.policy": "delete"])])
    }

    @Test func badLinesNameTheLine() {
        #expect(throws: TopicPlanError.self) { try TopicPlan.parse("a 1\nb zero\n") }
        do { _ = try TopicPlan.parse("a 1\nb zero\n") } catch { #expect(error.line == 2) }
        #expect(throws: TopicPlanError.self) { try TopicPlan.parse("a 1 retention\n") }
        #expect(throws: TopicPlanError.self) { try TopicPlan.parse("a 1\na 2\n") }
    }
}

/// Issue 30: the topic config carries replication and min.insync.replicas.
@Suite struct TopicPlanReplicationTests {
    @Test func productionTopicsAreReplicatedThreeTimesWithTwoInSync() throws {
        let text = try String(contentsOf: TopicPlanTests.repositoryRoot.appendingPathComponent("deploy/topics.conf"), encoding: .utf8)
        for entry in try TopicPlan.parse(text) {
            #expect(entry.replicationFactor == 3, "\(entry.name)")
            #expect(entry.config["min.insync.replicas"] == "2", "\(entry.name)")
        }
    }

    @Test func replicasAreAnOptionalThirdColumn() throws {
        let plan = try TopicPlan.parse("a 6 2 min.insync.replicas=1\nb 3 retention.ms=5\n")
        #expect(plan[0] == TopicPlanEntry(name: "a", partitions: 6, replicationFactor: 2, config: ["min.insync.replicas": "1"]))
        #expect(plan[1].replicationFactor == TopicPlan.defaultReplicationFactor)
    }

    @Test func rejectsBadReplicasAndAnInSyncMinimumAboveThem() {
        #expect(throws: TopicPlanError.self) { try TopicPlan.parse("a 6 zero\n") }
        #expect(throws: TopicPlanError.self) { try TopicPlan.parse("a 6 0\n") }
        #expect(throws: TopicPlanError.self) { try TopicPlan.parse("a 6 2 min.insync.replicas=3\n") }
        #expect(throws: TopicPlanError.self) { try TopicPlan.parse("a 6 3 min.insync.replicas=x\n") }
    }
}
