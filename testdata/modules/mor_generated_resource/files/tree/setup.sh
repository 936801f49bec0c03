#!/bin/sh
# Installed by the fsmove fixture mor_generated_resource; run by Exec['run-setup'].
echo "setup of mor_generated_resource"
