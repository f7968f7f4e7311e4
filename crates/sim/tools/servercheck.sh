#!/bin/sh
# Loads an id file into a scratch table on the local MariaDB (root, default socket) with
# multi-row INSERTs in autocommit, then prints innodb_index_stats, the split counter delta
# and the exact per-level structure read from the flushed .ibd file.
# usage: servercheck.sh IDS_FILE pk|secondary CHARS
# Works only in database keylab_simcheck, which it creates and drops.
set -eu
ids=$1; placement=$2; chars=$3
here=$(dirname "$0")
db=keylab_simcheck
m() { mariadb -N -B "$@"; }
m -e "DROP DATABASE IF EXISTS $db; CREATE DATABASE $db"
if [ "$placement" = pk ]; then
  m $db -e "CREATE TABLE t (id VARCHAR($chars) CHARACTER SET utf8mb4 NOT NULL PRIMARY KEY,
    data VARCHAR(255) CHARACTER SET utf8mb4 NULL) ENGINE=InnoDB ROW_FORMAT=DYNAMIC"
  cols="(id, data)"
else
  m $db -e "CREATE TABLE t (pk BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    id VARCHAR($chars) CHARACTER SET utf8mb4 NOT NULL, data VARCHAR(255) CHARACTER SET utf8mb4 NULL,
    KEY k_id (id)) ENGINE=InnoDB ROW_FORMAT=DYNAMIC"
  cols="(id, data)"
fi
m -e "SET GLOBAL innodb_monitor_enable='module_index'"
before=$(m -e "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_split'" | cut -f2)
sql=$(mktemp)
awk -v cols="$cols" 'BEGIN{n=0} { if (n%500==0) { if (n>0) print ";"; printf "INSERT INTO t %s VALUES ", cols } else printf ","; printf "(\x27%s\x27,\x27data\x27)", $1; n++ } END{print ";"}' "$ids" > "$sql"
m $db < "$sql"
rm -f "$sql"
after=$(m -e "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_split'" | cut -f2)
echo "pages_split delta $((after - before))"
m -e "SELECT name, count FROM information_schema.innodb_metrics WHERE name LIKE 'index_page%'"
m $db -e "ANALYZE TABLE t" >/dev/null
m -e "SELECT index_name, stat_name, stat_value FROM mysql.innodb_index_stats
  WHERE database_name='$db' AND table_name='t' AND stat_name IN ('size','n_leaf_pages')"
m -e "SELECT data_length, index_length FROM information_schema.tables WHERE table_schema='$db' AND table_name='t'"
m -e "SELECT i.index_id, i.name FROM information_schema.innodb_sys_indexes i
  JOIN information_schema.innodb_sys_tables t USING (table_id) WHERE t.name='$db/t'"
datadir=$(m -e "SELECT @@datadir")
# FLUSH TABLES ... FOR EXPORT writes every page; read the file while the lock is held.
{ echo "FLUSH TABLES t FOR EXPORT;"; echo "SELECT SLEEP(3);"; echo "UNLOCK TABLES;"; } | m $db >/dev/null &
sleep 1.5
python3 "$here/ibd_levels.py" "$datadir/$db/t.ibd"
wait
m -e "DROP DATABASE $db"
