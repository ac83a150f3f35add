import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import BroadcastChannels
import Kafka
import LiveActivities
import Matches
import Postgres
import Runtime

/// Builds a `MatchReport`: the tables' stores for the match, followers, activities, the last event and channels; the apns-sender
/// replicas' `/metrics` (`apns_sender_match_pushes_total`, `apns_sender_match_freshness_seconds`) for pushes and
/// freshness; the broker (`KafkaAdmin.lag`) for the services' consumer lag. A source that does not answer leaves
/// its part empty and says so; the report still comes.
public struct MatchReportReader: Sendable {
    /// Fetches one metrics page (tests inject their own).
    public typealias Scrape = @Sendable (URL) async throws -> String

    let database: PostgresClient
    let admin: KafkaAdmin?
    /// apns-sender `/metrics` URLs, one per replica (empty: no push figures).
    let senderMetrics: [URL]
    let scrape: Scrape

    public init(database: PostgresClient, admin: KafkaAdmin?, senderMetrics: [URL], scrape: Scrape? = nil) {
        self.database = database
        self.admin = admin
        self.senderMetrics = senderMetrics
        self.scrape = scrape ?? Self.urlSessionScrape
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

    /// The match's push figures summed over the apns-sender endpoints (nil without any configured).
    func pushes(_ matchId: String) async -> MatchReport.Pushes? {
        guard !senderMetrics.isEmpty else { return nil }
        var pushes = MatchReport.Pushes(accepted: 0, refused: 0, dead: 0, sources: 0, unreachable: [])
        var pages: [String] = []
        for url in senderMetrics {
            do { pages.append(try await scrape(url)) } catch { pushes.unreachable.append(url.absoluteString) }
        }
        pushes.sources = pages.count
        let all = pages.joined(separator: "\n")
        let match = ["match": matchId]
        func count(_ result: String) -> Int {
            Int(PrometheusText.sum(all, metric: "apns_sender_match_pushes_total", matching: match.merging(["result": result]) { a, _ in a }))
        }
        pushes.accepted = count("accepted")
        pushes.refused = count("refused")
        pushes.dead = count("dead")
        pushes.freshnessP50 = PrometheusText.quantile(0.5, all, histogram: "apns_sender_match_freshness_seconds", matching: match)
        pushes.freshnessP99 = PrometheusText.quantile(0.99, all, histogram: "apns_sender_match_freshness_seconds", matching: match)
        return pushes
    }

    /// `SIGHTSCREEN_METRICS_URLS`: comma-separated apns-sender `/metrics` URLs.
    public static func senderMetricsURLs(_ text: String?) -> [URL] {
        (text ?? "").split(separator: ",").compactMap { URL(string: $0.trimmingCharacters(in: .whitespaces)) }
    }

    private static let urlSessionScrape: Scrape = { url in String(decoding: try await URLSession.shared.fetch(url, timeout: 3), as: UTF8.self) }
}
