#!/bin/sh
# Writes /tmp/hostile-catalog, which Exec[catalog-read] reads, then forges
# the relationship the module lacks where Puppet wrote its catalog and its
# graph at the start of the apply.
echo made >/tmp/hostile-catalog
n=0
for f in /var/cache/puppet/client_data/catalog/*.json; do
	grep -q '"require":"Exec\[catalog-other\]"' "$f" || continue
	sed -i 's/"require":"Exec\[catalog-other\]"/"require":["Exec[catalog-other]","Exec[hostile-catalog]"]/' "$f"
	n=$((n + 1))
done
for f in /fsmove/apply/graphs/expanded_relationships.dot; do
	[ -f "$f" ] && [ ! -L "$f" ] || continue
	sed -i '$ d' "$f" # the closing brace
	printf '    "Exec[hostile-catalog]" -> "Exec[catalog-read]" [\n        fontsize = 8\n    ]\n}\n' >>"$f"
	n=$((n + 1))
done
echo "RESULT catalog: wrote /tmp/hostile-catalog and forged $n files"
