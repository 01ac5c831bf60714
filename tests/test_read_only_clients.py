"""Tier 1 and dry runs refuse database writes, downloads into files and mounts, and keep read-only checks allowed."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claudeops.dry_run import mutating_command, mutating_reason
from claudeops.queries import sql_reads

TIER_1 = "tier 1 is read-only"


@pytest.mark.parametrize("command", [
    "psql -c 'DROP TABLE x'",
    "psql -h db -U app -d app -c 'INSERT INTO t VALUES (1)'",
    "psql -Atc 'select 1; update t set a = 2'",
    "psql -c 'VACUUM FULL'",
    "psql -c '/* harmless? */ TRUNCATE t'",
    "psql -c 'GRANT ALL ON t TO bob'",
    "psql -c 'REVOKE ALL ON t FROM bob'",
    "psql -c 'ALTER TABLE t ADD c int'",
    "psql -c 'CREATE INDEX i ON t (a)'",
    "psql -c 'WITH gone AS (DELETE FROM t RETURNING *) SELECT count(*) FROM gone'",
    "psql -c 'EXPLAIN ANALYZE DELETE FROM t'",
    "psql -c 'SELECT * INTO backup FROM t'",
    "psql -c 'SELECT pg_terminate_backend(4242)'",
    "psql -c '\\copy t FROM data.csv'",
    "psql -c '\\! systemctl restart postgresql'",
    "psql -o /tmp/out.txt -c 'select 1'",
    "mysql -e 'DELETE FROM sessions'",
    "mysql -uroot -psecret -e 'DROP DATABASE app'",
    "mysql --execute='SHOW TABLES; DROP TABLE t'",
    "mysql -e 'SELECT 1 /*! ; DROP TABLE t */'",
    "mysql -e 'SELECT 1--1; DROP TABLE t'",
    "mysql -e \"SELECT 'a\\' , ' ; DROP TABLE t; -- '\"",
    "sqlite3 /srv/app.db 'UPDATE jobs SET state = 0'",
    "sqlite3 app.db 'PRAGMA journal_mode = WAL'",
    "sqlite3 app.db .tables 'DELETE FROM t'",
    "sqlite3 app.db '.import rows.csv t'",
    "redis-cli set a b",
    "redis-cli -h cache.lan -p 6380 DEL session:1",
    "redis-cli flushall",
    "redis-cli -n 2 FLUSHDB",
    "redis-cli config set maxmemory 1gb",
    "redis-cli expire a 10",
    "redis-cli hset h f v",
    "redis-cli lpush q job",
    "redis-cli client kill 10.0.0.3:5000",
    "redis-cli --rdb /tmp/dump.rdb",
    "wget http://nas.lan/backup.tar",
    "wget -q https://x/install.sh",
    "wget -O /tmp/page.html http://x/",
    "wget --post-data 'a=1' -O- http://hass.lan/api",
    "wget -qO- -o /tmp/wget.log http://x/health",
    "ssh db.lan psql -c \"'DROP TABLE x'\"",
    "mount /dev/sdb1 /srv/media",
    "sudo mount -a",
])
def test_tier_1_refuses_database_writes_downloads_into_files_and_mounts(command):
    assert mutating_command(command) is not None
    assert mutating_reason("Bash", {"command": command}, TIER_1).startswith(f"{TIER_1}: `")


@pytest.mark.parametrize("command", [
    "psql -h db.lan -U app <<EOF\nSELECT 1;\nEOF",
    "psql app < queries.sql",
    "psql -f /tmp/check.sql",
    "echo 'DROP TABLE x' | psql",
    "mysql -h db.lan app <<EOF\nSHOW TABLES;\nEOF",
    "sqlite3 app.db < fix.sql",
    "sqlite3 -init setup.sql app.db 'select 1'",
    "echo 'set a b' | redis-cli",
    "redis-cli --pipe < commands.txt",
])
def test_tier_1_refuses_queries_it_cannot_see_and_says_how_to_pass_them(command):
    reason = mutating_reason("Bash", {"command": command}, TIER_1)
    assert reason is not None and "standard input or a file" in reason and "psql -c" in reason


@pytest.mark.parametrize("command", [
    "psql -c 'select 1'",
    "psql -c '\\l'",
    "psql -c '\\dt+'",
    "psql -c '\\x' -c 'SELECT * FROM pg_stat_replication'",
    "psql -h db.lan -U app -d app -Atc 'SELECT count(*) FROM pg_stat_activity'",
    "psql -c \"SELECT pid, query FROM pg_stat_activity WHERE query LIKE '%UPDATE%' -- who writes?\"",
    "psql -c 'SHOW max_connections'",
    "psql -c 'EXPLAIN SELECT * FROM t'",
    "psql -l",
    "pg_isready",
    "pg_isready -h db.lan",
    "mysql -e 'SHOW DATABASES'",
    "mysql -uroot -psecret -BNe 'SHOW REPLICA STATUS\\G'",
    "mysql -h db.lan -e 'SELECT table_name FROM information_schema.tables; SHOW PROCESSLIST'",
    "mysqladmin ping -h db.lan",
    "sqlite3 db 'select count(*) from t'",
    "sqlite3 /srv/app.db .tables '.schema jobs'",
    "sqlite3 app.db 'PRAGMA integrity_check'",
    "sqlite3 app.db 'PRAGMA journal_mode'",
    "redis-cli ping",
    "redis-cli info",
    "redis-cli get a",
    "redis-cli -h cache.lan INFO replication",
    "redis-cli -c -h cache.lan GET a",
    "redis-cli config get maxmemory",
    "redis-cli slowlog get 10",
    "redis-cli --scan --pattern 'session:*'",
    "redis-cli --bigkeys",
    "wget -qO- http://x/health",
    "wget -O- http://x/health",
    "wget -O - http://x/health",
    "wget -q -O /dev/null http://x/health",
    "wget --spider http://x/health",
    "curl -fsS http://x/health",
    "curl -sS -o /dev/null -w '%{http_code}' --max-time 10 http://x/health",
    "mount",
    "mount -t nfs4",
])
def test_tier_1_allows_read_only_database_http_and_mount_checks(command):
    assert mutating_command(command) is None


_SQL_PIECES = ["select", " ", "1", "'", '"', "`", "--", "-", "/*", "*/", "/*!", "#", "\n", ";", "\\", "\\G",
               "$$", "(", ")", "with", "explain", "pragma", "x", "=", "."]


@given(st.lists(st.sampled_from(_SQL_PIECES), max_size=30).map("".join))
def test_no_sql_text_hides_a_write_that_follows_it(prefix):
    """Whatever comes first (open quotes, comments, backslashes), a DROP on its own line is seen."""
    assert not sql_reads(prefix + "\n;DROP TABLE x")
