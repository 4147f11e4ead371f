/*
 * portmacro.h - the SMP port layer of FreeRTOS V11.2 for RV32 harts in machine mode
 * (QEMU virt: a CLINT with one msip and one mtimecmp per hart, one shared mtime).
 *
 * The kernel's own GCC/RISC-V port is single-core: its portASM.S saves and restores
 * the context through the variable pxCurrentTCB, which in an SMP build of tasks.c is
 * not a variable but a call (xTaskGetCurrentTaskHandle()), and it has one interrupt
 * stack, one critical nesting count and no way to make another hart yield. This layer
 * keeps the kernel port's stack frame idea and its chip-specific extension header
 * (RISCV_no_extensions, on the include path) and replaces the rest:
 *
 *   - the core ID is mhartid; each hart saves into and restores from
 *     pxCurrentTCBs[ mhartid ] and runs its handlers on its own interrupt stack (mscratch
 *     holds its top: start.S);
 *   - portYIELD() is an ecall, portYIELD_CORE( x ) the CLINT's software interrupt of
 *     hart x (msip), and both end in vTaskSwitchContext( mhartid ) in port.c's trap
 *     dispatch, once the handler's own critical sections are over;
 *   - the kernel's two locks are recursive ticket locks on amoadd (port.c), owned by
 *     a hart, taken only with that hart's interrupts masked, their waiters asleep in
 *     WFI until the holder wakes them;
 *   - the critical nesting count is in the TCB (portCRITICAL_NESTING_IN_TCB), where
 *     tasks.c keeps it per core for SMP, so the context frame does not carry it.
 *
 * README.md says why each piece is safe.
 */
#ifndef PORTMACRO_H
#define PORTMACRO_H

#if __riscv_xlen != 32
    #error "freertos-port/riscv-virt-smp/port: RV32 only (__riscv_xlen is not 32)"
#endif

#include <stdint.h>

/* ---- Types -------------------------------------------------------------------- */
#define portSTACK_TYPE              uint32_t
#define portBASE_TYPE               int32_t
#define portUBASE_TYPE              uint32_t
#define portMAX_DELAY               ( TickType_t ) 0xffffffffUL

typedef portSTACK_TYPE   StackType_t;
typedef portBASE_TYPE    BaseType_t;
typedef portUBASE_TYPE   UBaseType_t;
typedef portUBASE_TYPE   TickType_t;

/* A 32-bit tick on a 32-bit core: one load, no lock. */
#define portTICK_TYPE_IS_ATOMIC     1

/* ---- Architecture ------------------------------------------------------------- */
#define portSTACK_GROWTH            ( -1 )
#define portTICK_PERIOD_MS          ( ( TickType_t ) 1000 / configTICK_RATE_HZ )
#define portBYTE_ALIGNMENT          16
#define portNOP()                   __asm volatile ( "nop" )
#define portINLINE                  __inline
#ifndef portFORCE_INLINE
    #define portFORCE_INLINE        inline __attribute__( ( always_inline ) )
#endif
/* A full fence: the harts share memory, and the kernel's barriers order data that
 * another hart reads. */
#define portMEMORY_BARRIER()        __asm volatile ( "fence rw, rw" ::: "memory" )
#define portSOFTWARE_BARRIER()      __asm volatile ( "" ::: "memory" )

#define portTASK_FUNCTION_PROTO( vFunction, pvParameters )    void vFunction( void * pvParameters )
#define portTASK_FUNCTION( vFunction, pvParameters )          void vFunction( void * pvParameters )

/* ---- The core ID -------------------------------------------------------------- */
/* mhartid: one csrr, no memory access. Harts 0 .. configNUMBER_OF_CORES - 1 run the
 * kernel (start.S parks any others for good). A task can move to another hart
 * between this read and a use of it unless interrupts are masked, as the kernel's
 * callers have them. */
static portFORCE_INLINE BaseType_t xPortGetCoreID( void )
{
    uint32_t ulHart;

    __asm volatile ( "csrr %0, mhartid" : "=r" ( ulHart ) );
    return ( BaseType_t ) ulHart;
}
#define portGET_CORE_ID()           xPortGetCoreID()

/* ---- Interrupt masking (this hart only: mstatus.MIE) -------------------------------- */
#define portMSTATUS_MIE             ( 8UL )

static portFORCE_INLINE UBaseType_t uxPortSetInterruptMask( void )
{
    UBaseType_t uxWas;

    __asm volatile ( "csrrci %0, mstatus, 8" : "=r" ( uxWas ) :: "memory" );
    return uxWas & portMSTATUS_MIE;
}

static portFORCE_INLINE void vPortClearInterruptMask( UBaseType_t uxWas )
{
    __asm volatile ( "csrs mstatus, %0" :: "r" ( uxWas & portMSTATUS_MIE ) : "memory" );
}

#define portDISABLE_INTERRUPTS()                  __asm volatile ( "csrc mstatus, 8" ::: "memory" )
#define portENABLE_INTERRUPTS()                   __asm volatile ( "csrs mstatus, 8" ::: "memory" )
#define portSET_INTERRUPT_MASK()                  uxPortSetInterruptMask()
#define portCLEAR_INTERRUPT_MASK( x )             vPortClearInterruptMask( x )
/* Handlers run with MIE clear already (the port does not nest traps); masking for
 * real keeps the FromISR functions right when a task calls them too. */
#define portSET_INTERRUPT_MASK_FROM_ISR()         uxPortSetInterruptMask()
#define portCLEAR_INTERRUPT_MASK_FROM_ISR( x )    vPortClearInterruptMask( x )

/* ---- Critical sections: the kernel's SMP ones, nesting counted in the TCB ----------- */
#define portCRITICAL_NESTING_IN_TCB               1

extern void vTaskEnterCritical( void );
extern void vTaskExitCritical( void );
extern UBaseType_t vTaskEnterCriticalFromISR( void );
extern void vTaskExitCriticalFromISR( UBaseType_t uxSavedInterruptStatus );

#define portENTER_CRITICAL()                      vTaskEnterCritical()
#define portEXIT_CRITICAL()                       vTaskExitCritical()
#define portENTER_CRITICAL_FROM_ISR()             vTaskEnterCriticalFromISR()
#define portEXIT_CRITICAL_FROM_ISR( x )           vTaskExitCriticalFromISR( x )

/* ---- The kernel's locks: recursive ticket locks (port.c) -----------------------------
 * Taken with the hart's interrupts masked (tasks.c always does), held by one hart,
 * taken again by the same hart without waiting (tasks.c nests them: vTaskSuspendAll()
 * inside vTaskSuspendAll(), a critical section while the scheduler is suspended,
 * vTaskSwitchContext() from a handler that interrupted a task holding the task lock).
 * First come, first served: a hart that waits long to be woken (a host thread the host
 * holds up, without -icount) is not overtaken for ever by the busier ones. */
typedef struct PortSpinlock
{
    volatile uint32_t ulNext;    /* the next ticket to hand out (amoadd) */
    volatile uint32_t ulServing; /* the ticket whose hart holds the lock */
    volatile uint32_t ulOwner;   /* the holder's hart + 1, 0 when free */
    uint32_t ulDepth;            /* times taken by the holder, written by the holder only */
    volatile uint32_t ulWaiters; /* a bit per hart asleep in WFI for it (port.c) */
} PortSpinlock_t;

void vPortSpinlockTake( PortSpinlock_t * pxLock, BaseType_t xCoreID );
void vPortSpinlockGive( PortSpinlock_t * pxLock, BaseType_t xCoreID );

extern PortSpinlock_t xPortTaskLock;
extern PortSpinlock_t xPortIsrLock;

#define portGET_TASK_LOCK( xCoreID )              vPortSpinlockTake( &xPortTaskLock, ( xCoreID ) )
#define portRELEASE_TASK_LOCK( xCoreID )          vPortSpinlockGive( &xPortTaskLock, ( xCoreID ) )
#define portGET_ISR_LOCK( xCoreID )               vPortSpinlockTake( &xPortIsrLock, ( xCoreID ) )
#define portRELEASE_ISR_LOCK( xCoreID )           vPortSpinlockGive( &xPortIsrLock, ( xCoreID ) )

/* ---- In a handler? ------------------------------------------------------------------
 * Nonzero on a hart while port.c's trap dispatch runs there (every interrupt and
 * exception, the yields included). Read with the hart's interrupts masked: a task that
 * read its hart's number and then moved to another hart would read the first hart's
 * flag, which says nothing of the task (xPortCheckIfInISR). */
extern volatile UBaseType_t uxPortInHandler[ configNUMBER_OF_CORES ];
BaseType_t xPortCheckIfInISR( void );
#define portCHECK_IF_IN_ISR()                     xPortCheckIfInISR()
#define portASSERT_IF_IN_ISR()                    configASSERT( portCHECK_IF_IN_ISR() == 0 )

/* ---- Yields ------------------------------------------------------------------------
 * Own hart: an environment call, taken even with MIE clear (the kernel yields with its
 * interrupts masked in vTaskYieldWithinAPI()). Another hart: its machine software
 * interrupt, which waits while that hart has interrupts masked (a critical section),
 * as tasks.c expects of portYIELD_CORE(). */
void vPortYieldCore( BaseType_t xCoreID );

#define portYIELD()                               __asm volatile ( "ecall" ::: "memory" )
#define portYIELD_CORE( xCoreID )                 vPortYieldCore( xCoreID )

/* From a handler: the switch happens in port.c's dispatch after the handler returns,
 * outside the handler's critical sections (vTaskSwitchContext() asserts that the
 * hart's nesting count is 0). The trace macros are the kernel's, as in the stock port. */
extern volatile BaseType_t xPortSwitchRequired[ configNUMBER_OF_CORES ];
#define portEND_SWITCHING_ISR( xSwitchRequired )                  \
    do                                                            \
    {                                                             \
        if( ( xSwitchRequired ) != pdFALSE )                      \
        {                                                         \
            traceISR_EXIT_TO_SCHEDULER();                         \
            xPortSwitchRequired[ portGET_CORE_ID() ] = pdTRUE;    \
        }                                                         \
        else                                                      \
        {                                                         \
            traceISR_EXIT();                                      \
        }                                                         \
    } while( 0 )
#define portYIELD_FROM_ISR( x )                   portEND_SWITCHING_ISR( x )

/* ---- The machine timer (FreeRTOSConfig.h) ------------------------------------------ */
#if !defined( configMTIME_BASE_ADDRESS ) || !defined( configMTIMECMP_BASE_ADDRESS ) || !defined( configMSIP_BASE_ADDRESS )
    #error "FreeRTOSConfig.h must define configMTIME_BASE_ADDRESS, configMTIMECMP_BASE_ADDRESS and configMSIP_BASE_ADDRESS (the CLINT's registers) for this port"
#endif

#endif /* PORTMACRO_H */
