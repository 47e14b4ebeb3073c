/*
 * Internal to store/: the one format of a timestamp the API and the exports show (docs/api.md,
 * "Conventions"): RFC 3339 in UTC with microseconds, 2026-11-27T17:30:06.123456Z, the
 * same width whatever the session's time zone. SQL_TIME ends an SQL to_char call begun
 * in the statement: "to_char(s.examined_at" SQL_TIME is that timestamp so, as text; NULL
 * stays NULL (JSON null, an empty CSV field).
 */
#ifndef SITESCOUT_STORE_SQLTIME_H
#define SITESCOUT_STORE_SQLTIME_H

#define SQL_TIME " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"

#endif
