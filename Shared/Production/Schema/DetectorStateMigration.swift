import Postgres

extension SightscreenMigrations {
    /// Version 2: the detector's full per-match state (watermark, announced milestones and phases, targets)
    /// next to the seeds' columns, which it keeps filled for other readers (the api reads `display_state`).
    public static let detectorState = PostgresMigration(
        version: 2, name: "active_matches.detector_state",
        sql: """
            ALTER TABLE active_matches ADD COLUMN detector_state jsonb;
            """)
}
