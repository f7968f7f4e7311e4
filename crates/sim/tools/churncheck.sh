#!/bin/sh
# Runs the churn written by `churncheck gen` on the local MariaDB (root, default socket) in a
# scratch database keylab_simcheck: loads DIR/load.txt with 500-row INSERTs, then per round
# the inserts (500-row INSERTs), the deletes one by one in one transaction in file order,
# and waits for purge (innodb_max_purge_lag_wait=0) before the next round. One purge thread
# keeps purge in undo-log order. Prints the index_page_* counter deltas over the churn and
# innodb_index_stats after ANALYZE. Restores innodb_purge_threads and the monitors it
# enabled, and drops the database.
# usage: churncheck.sh DIR pk|secondary
set -eu
dir=$1; placement=$2
db=keylab_simcheck
m() { mariadb -N -B "$@"; }
purge_threads=$(m -e "SELECT @@innodb_purge_threads")
fill_factor=$(m -e "SELECT @@innodb_fill_factor")
counters="index_page_merge_attempts index_page_merge_successful index_page_discards index_page_reorg_attempts"
was_enabled=""
for c in $counters; do
  e=$(m -e "SELECT enabled FROM information_schema.innodb_metrics WHERE name='$c'")
  [ "$e" = 1 ] && was_enabled="$was_enabled $c"
done
restore() {
  m -e "SET GLOBAL innodb_purge_threads=$purge_threads"
  m -e "SET GLOBAL innodb_fill_factor=$fill_factor"
  for c in $counters; do
    case " $was_enabled " in *" $c "*) ;; *) m -e "SET GLOBAL innodb_monitor_disable='$c'";; esac
  done
  m -e "DROP DATABASE IF EXISTS $db"
}
trap restore EXIT
m -e "DROP DATABASE IF EXISTS $db; CREATE DATABASE $db"
if [ "$placement" = pk ]; then
  m $db -e "CREATE TABLE t (id VARCHAR(36) CHARACTER SET utf8mb4 NOT NULL PRIMARY KEY,
    data VARCHAR(255) CHARACTER SET utf8mb4 NULL) ENGINE=InnoDB ROW_FORMAT=DYNAMIC"
else
  m $db -e "CREATE TABLE t (pk BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    id VARCHAR(36) CHARACTER SET utf8mb4 NOT NULL, data VARCHAR(255) CHARACTER SET utf8mb4 NULL,
    KEY k_id (id)) ENGINE=InnoDB ROW_FORMAT=DYNAMIC"
fi
m -e "SET GLOBAL innodb_purge_threads=1"
for c in $counters; do m -e "SET GLOBAL innodb_monitor_enable='$c'"; done
sql=$(mktemp)
awk 'BEGIN{n=0} { if (n%500==0) { if (n>0) print ";"; printf "INSERT INTO t (id, data) VALUES " } else printf ","; printf "(\x27%s\x27,\x27data\x27)", $1; n++ } END{print ";"}' "$dir/load.txt" > "$sql"
m $db < "$sql"
m -e "SET GLOBAL innodb_max_purge_lag_wait=0"
snap() {
  split=$(m -e "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_split'" | cut -f2)
  echo "$split $(m -e "SELECT GROUP_CONCAT(count ORDER BY name SEPARATOR ' ') FROM information_schema.innodb_metrics WHERE name IN ('index_page_merge_attempts','index_page_merge_successful','index_page_discards','index_page_reorg_attempts')")"
}
before=$(snap)
# Rounds: inserts in 500-row statements, deletes one per statement in one transaction, COMMIT,
# then wait for purge.
awk -v q="'" '
  function flush_ins() { if (ni > 0) { print ins ";"; ni = 0 } }
  /^I / { if (ni == 0) ins = "INSERT INTO t (id, data) VALUES "; else ins = ins ","; ins = ins "(" q $2 q "," q "data" q ")"; ni++; if (ni == 500) flush_ins(); next }
  /^D / { flush_ins(); if (!intx) { print "BEGIN;"; intx = 1 } print "DELETE FROM t WHERE id=" q $2 q ";"; next }
  /^R/ { flush_ins(); if (intx) { print "COMMIT;"; intx = 0 } print "SET GLOBAL innodb_max_purge_lag_wait=0;" }
' "$dir/ops.txt" > "$sql"
m $db < "$sql"
rm -f "$sql"
after=$(snap)
echo "before (split, discards, attempts, successful, reorg): $before"
echo "after: $after"
set -- $before; b1=$1 b2=$2 b3=$3 b4=$4 b5=$5
set -- $after
echo "churn deltas: splits $(($1 - b1)) merge_attempts $(($3 - b3)) merges $(($4 - b4)) discards $(($2 - b2)) reorgs $(($5 - b5))"
m $db -e "ANALYZE TABLE t" >/dev/null
m -e "SELECT index_name, stat_name, stat_value FROM mysql.innodb_index_stats
  WHERE database_name='$db' AND table_name='t' AND stat_name IN ('size','n_leaf_pages')"
m -e "SELECT data_length, index_length, data_free FROM information_schema.tables WHERE table_schema='$db' AND table_name='t'"
m $db -e "FLUSH TABLES t FOR EXPORT; UNLOCK TABLES"
python3 "$(dirname "$0")/ibd_fsp.py" "$(m -e "SELECT @@datadir")$db/t.ibd"
if [ -n "${KEYLAB_DUMP_PAGES:-}" ]; then
  # Every page of the table is in the buffer pool of a small test: its records per page.
  m -e "SELECT CONCAT('page ', page_number, ' recs ', number_records, ' data ', data_size)
    FROM information_schema.innodb_buffer_page WHERE table_name LIKE '%keylab_simcheck%' AND index_name='PRIMARY'
    AND page_type='INDEX' ORDER BY page_number" >&2
fi
if [ -n "${KEYLAB_REBUILD_FF:-}" ]; then
  # OPTIMIZE TABLE (a sorted rebuild) at this innodb_fill_factor, then the same statistics.
  m -e "SET GLOBAL innodb_fill_factor=$KEYLAB_REBUILD_FF"
  m $db -e "OPTIMIZE TABLE t" >/dev/null
  echo "after OPTIMIZE TABLE at fill factor $KEYLAB_REBUILD_FF:"
  m -e "SELECT index_name, stat_name, stat_value FROM mysql.innodb_index_stats
    WHERE database_name='$db' AND table_name='t' AND stat_name IN ('size','n_leaf_pages')"
  m -e "SELECT data_length, index_length, data_free FROM information_schema.tables WHERE table_schema='$db' AND table_name='t'"
  # The rebuilt file's size and FSP header (FLUSH ... FOR EXPORT writes its pages first).
  m $db -e "FLUSH TABLES t FOR EXPORT; UNLOCK TABLES"
  python3 "$(dirname "$0")/ibd_fsp.py" "$(m -e "SELECT @@datadir")$db/t.ibd"
fi
