import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Kafka
import Postgres
import Runtime

/// Builds a `MatchReport`: PostgreSQL for followers, activities, the last event and channels; the apns-sender
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
        if let row = try await database.query(
            "SELECT card->>'title' AS title, status, is_live FROM matches WHERE match_id = $1", [matchId]).first {
            report.title = try row.decode("title", as: String?.self)
            report.status = try row.decode("status", as: String.self)
            report.isLive = try row.decode("is_live", as: Bool.self)
        }
        report.followers = Int(try await database.query("SELECT count(*) FROM match_follows WHERE match_id = $1 AND (expires_at IS NULL OR expires_at > now())", [matchId])
            .first?.decode(0, as: Int64.self) ?? 0)
        report.activities = try await database.query(
            """
            SELECT status, end_reason, delivery, count(*) AS n FROM live_activities WHERE match_id = $1
            GROUP BY status, end_reason, delivery ORDER BY status, end_reason NULLS FIRST, delivery
            """, [matchId]
        ).map { row in
            MatchReport.ActivityCount(status: try row.decode("status"), endReason: try row.decode("end_reason", as: String?.self),
                                      delivery: try row.decode("delivery"), count: Int(try row.decode("n", as: Int64.self)))
        }
        if let row = try await database.query(
            """
            SELECT seq, to_char(last_updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS at,
                   display_state->'lockScreen'->>'headline' AS headline, display_state->>'resultLine' AS result
            FROM active_matches WHERE match_id = $1 AND seq > 0
            """, [matchId]).first {
            report.lastEvent = MatchReport.LastEvent(seq: try row.decode("seq"), at: try row.decode("at"),
                                                     headline: try row.decode("headline", as: String?.self),
                                                     resultLine: try row.decode("result", as: String?.self))
        }
        report.channels = try await database.query(
            "SELECT apns_env, state, generation FROM broadcast_channels WHERE match_id = $1 ORDER BY apns_env", [matchId]
        ).map { row in
            MatchReport.Channel(environment: try row.decode("apns_env"), state: try row.decode("state"),
                                generation: Int(try row.decode("generation", as: Int32.self)))
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
