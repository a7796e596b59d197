/**
 * @file hs_readout.h
 * @brief The study read-outs at one node, updated after every accepted step (HS_HD: the CPU
 * backend's loop and the CUDA pointwise kernel run this same function).
 *
 * With a = phi at the step's start and z at its end (model units), t0 the step's start and dt its
 * length in ms, a threshold crossing is placed by linear interpolation within the step:
 * t = t0 + dt (thr - a) / (z - a).
 *  - activation: an upward crossing of thr_act (a < thr_act <= z) starts a beat when the node has
 *    no beat yet or its last beat has repolarised: act = t, repol = apd = -1, beats += 1;
 *  - repolarisation: during a beat that has not repolarised, a downward crossing of thr_rep
 *    (a >= thr_rep > z): repol = t, apd = repol - act.
 * A beat is therefore activation -> repolarisation; an upstroke before repolarisation (a second
 * stimulus inside the plateau) does not start a new beat.
 */
#ifndef HS_READOUT_H
#define HS_READOUT_H

#include "hs_hd.h"

/**
 * @brief Update node i's read-outs. @param[in] a,z phi at the step's start and end;
 * @param[in] thr_act,thr_rep thresholds in model units; @param[in] t0,dt ms;
 * @param[in,out] act,rep,apd,beats the node's four read-outs.
 */
HS_HD void hs_readout_update(double a, double z, double thr_act, double thr_rep, double t0, double dt, double *act,
                             double *rep, double *apd, double *beats)
{
    if (a < thr_act && z >= thr_act && (*act < 0.0 || *rep >= 0.0)) {
        *act = t0 + dt * (thr_act - a) / (z - a);
        *rep = -1.0;
        *apd = -1.0;
        *beats += 1.0;
    }
    if (*act >= 0.0 && *rep < 0.0 && a >= thr_rep && z < thr_rep) {
        double t = t0 + dt * (thr_rep - a) / (z - a);
        if (t < *act) t = *act; /* both crossings inside one step: repolarisation is not before activation */
        *rep = t;
        *apd = t - *act;
    }
}

#endif
