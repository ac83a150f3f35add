import Postgres

extension APITestHarness {
    /// Everything the database holds for `user`: follows, devices and activities, as sorted text rows
    /// (a request that must change nothing leaves this identical).
    func snapshot(of user: String) async throws -> [String] {
        var rows: [String] = []
        for row in try await database.query("SELECT match_id FROM match_follows WHERE user_id = $1", [user]) {
            rows.append("follow \(try row.decode("match_id", as: String.self))")
        }
        for row in try await database.query(
            "SELECT device_id, push_token, push_to_start_token, app_version FROM devices WHERE user_id = $1", [user]) {
            rows.append("device \(try row.decode("device_id", as: String.self)) \(try row.decode("push_token", as: String?.self) ?? "-") "
                + "\(try row.decode("push_to_start_token", as: String?.self) ?? "-") \(try row.decode("app_version", as: String?.self) ?? "-")")
        }
        for row in try await database.query(
            "SELECT match_id, device_id, status, update_token FROM live_activities WHERE user_id = $1", [user]) {
            rows.append("activity \(try row.decode("match_id", as: String.self)) \(try row.decode("device_id", as: String.self)) "
                + "\(try row.decode("status", as: String.self)) \(try row.decode("update_token", as: String?.self) ?? "-")")
        }
        return rows.sorted()
    }
}
