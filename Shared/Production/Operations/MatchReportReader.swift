import Foundation
import BroadcastChannels
import DeliveryRecord
import Kafka
import LiveActivities
import Matches
import Postgres
import Runtime

/// Builds a `MatchReport`: the tables' stores for the match, followers, activities, the last event and channels; the delivery
/// record (`DeliveryRecordStore.matchTotals`) for pushes and freshness; the broker (`KafkaAdmin.lag`) for the services'
/// consumer lag. A source that does not answer leaves its part empty and says so; the report still comes.
public struct MatchReportReader: Sendable {
    let database: PostgresClient
    let admin: KafkaAdmin?

    public init(database: PostgresClient, admin: KafkaAdmin?) {
        self.database = database
        self.admin = admin
    }

    public func report(matchId: String) async throws -> MatchReport {
        var report = MatchReport(matchId: matchId, isLive: false, followers: 0, activities: [], channels: [], lag: [])
        if let summary = try await MatchStore(database: database).summary(matchId: matchId) {
            report.title = summary.title
            report.status = summary.status
            report.isLive = summary.isLive
        }
        report.followers = try await FollowStore(database: database).followerCount(matchId: matchId, now: Date())
        report.activities = try await LiveActivityStore(database: database).counts(matchId: matchId).map {
            MatchReport.ActivityCount(status: $0.status, endReason: $0.endReason, delivery: $0.delivery, count: $0.count)
        }
        report.lastEvent = try await ActiveMatchStore(database: database).lastEvent(matchId: matchId).map {
            MatchReport.LastEvent(seq: $0.seq, at: $0.at, headline: $0.headline, resultLine: $0.resultLine)
        }
        report.channels = try await BroadcastChannelStore(database: database).channels(matchId: matchId).map {
            MatchReport.Channel(environment: $0.environment.rawValue, state: $0.state.rawValue, generation: $0.generation)
        }
        report.pushes = await pushes(matchId)
        (report.lag, report.lagError) = await ConsumerGroupLag.read(admin)
        return report
    }

    /// The match's push figures from the delivery record (nil when it cannot be read).
    func pushes(_ matchId: String) async -> MatchReport.Pushes? {
        let store = DeliveryRecordStore(database: database)
        guard let totals = try? await store.matchTotals(matchId: matchId), let progress = try? await store.progress() else { return nil }
        return MatchReport.Pushes(
            accepted: Int(totals.accepted), refused: Int(totals.refused), dead: Int(totals.dead), superseded: Int(totals.superseded),
            retried: Int(totals.retried), freshnessP50: totals.freshnessP50, freshnessP99: totals.freshnessP99, recordRows: Int(totals.rows),
            recordLastWrittenAt: progress.lastFoldAt.map(ActivityDiagnosis.iso), recordGaps: progress.gaps.count)
    }
}
